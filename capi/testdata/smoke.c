/* smoke.c drives libinterlock through interlock.h only, as the Node addon
 * does: a confirm pause answered by id, the run_finished event through a C
 * callback that holds each batch until the main thread is done with it
 * (IL_EVENTS_HELD, il_engine_events_done), last-error truncation,
 * unregister, close. capi_test.go builds
 * the library and this program and runs it; it exits 0 when all is well. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interlock.h"

#define CHECK(cond)                                                                      \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      char msg_[512];                                                                    \
      il_last_error(0, msg_, sizeof msg_, NULL);                                         \
      fprintf(stderr, "%s:%d: check failed: %s (last error of 0: %s)\n", __FILE__,       \
              __LINE__, #cond, msg_);                                                    \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int run_finished;
static int events;
static pthread_t registering_thread;
static int called_on_registering_thread;
static int held; /* batches waiting for il_engine_events_done */
static int calls_while_held; /* calls while two were held: the library waits then */

static int on_event(void *user, const char *json, size_t len) {
  pthread_mutex_lock(&mu);
  if (held >= 2) calls_while_held++;
  held++;
  events++;
  if (pthread_equal(pthread_self(), registering_thread)) called_on_registering_thread = 1;
  if (json[len] == '\0' && strstr(json, "\"type\":\"run_finished\"") &&
      strstr(json, "\"run\":1") && strstr(json, "\"status\":\"idle\""))
    run_finished = 1;
  pthread_mutex_unlock(&mu);
  (void)user;
  return IL_EVENTS_HELD;
}

/* The main thread is done with the held batches: more may come. */
static void release_batch(il_handle eng) {
  pthread_mutex_lock(&mu);
  int was_held = held;
  held = 0;
  pthread_mutex_unlock(&mu);
  for (int i = 0; i < was_held; i++) CHECK(il_engine_events_done(eng) == IL_OK);
}

static void sleep_ms(int ms) {
  struct timespec ts = {0, ms * 1000000L};
  nanosleep(&ts, NULL);
}

int main(void) {
  CHECK(strcmp(il_version(), "0.1.0") == 0);
  CHECK(strcmp(il_status_name(IL_ERR_WRONG_PAUSE_KIND), "ERR_WRONG_PAUSE_KIND") == 0);

  il_handle eng = 0;
  CHECK(il_engine_create("{\"nope\": 1}", &eng) == IL_ERR_INVALID_ARGUMENT && eng == 0);
  size_t needed = 0;
  char small[8];
  CHECK(il_last_error(0, small, sizeof small, &needed) == IL_ERR_INVALID_ARGUMENT);
  CHECK(strlen(small) == 7 && needed > sizeof small);
  char *full = malloc(needed);
  CHECK(il_last_error(0, full, needed, &needed) == IL_OK && strstr(full, "\"nope\""));
  free(full);

  CHECK(il_engine_create(NULL, &eng) == IL_OK && eng != 0);
  registering_thread = pthread_self();
  CHECK(il_engine_set_event_callback(eng, on_event, NULL) == IL_OK);

  il_handle s = 0;
  CHECK(il_session_create(eng,
                          "{\"id\":\"c\",\"script\":[{\"toolCalls\":[{\"name\":\"ask\",\"args\":"
                          "{\"kind\":\"confirm\",\"message\":\"ok?\"}}]},{\"text\":\"done\"}]}",
                          &s, NULL) == IL_OK);
  uint64_t run = 0;
  CHECK(il_session_prompt(s, "go", &run) == IL_OK && run == 1);

  int32_t st = -1;
  for (int i = 0; i < 5000 && st != IL_STATUS_PAUSED; i++) {
    CHECK(il_session_get_status(s, &st) == IL_OK);
    if (st != IL_STATUS_PAUSED) sleep_ms(1);
  }
  CHECK(st == IL_STATUS_PAUSED);

  char *pause = NULL;
  CHECK(il_session_get_pause_state(s, &pause) == IL_OK && strstr(pause, "\"id\":\"p1\""));
  il_free(pause);
  CHECK(il_session_pause_resume(s, "p1") == IL_ERR_WRONG_PAUSE_KIND);
  char msg[256];
  CHECK(il_last_error(s, msg, sizeof msg, NULL) == IL_OK && strstr(msg, "approve or deny"));
  CHECK(il_session_pause_confirm(s, "p1", 1, NULL, "once") == IL_OK);

  int done = 0;
  for (int i = 0; i < 5000 && !done; i++) {
    pthread_mutex_lock(&mu);
    done = run_finished;
    pthread_mutex_unlock(&mu);
    release_batch(eng);
    if (!done) sleep_ms(1);
  }
  CHECK(done);

  CHECK(il_engine_set_event_callback(eng, NULL, NULL) == IL_OK);
  pthread_mutex_lock(&mu);
  int seen = events;
  CHECK(!called_on_registering_thread);
  CHECK(calls_while_held == 0);
  pthread_mutex_unlock(&mu);

  char *decision = NULL;
  CHECK(il_check_command("ls -la", &decision) == IL_OK && strstr(decision, "\"decision\""));
  il_free(decision);

  CHECK(il_session_close(s) == IL_OK);
  CHECK(il_session_close(s) == IL_ERR_INVALID_HANDLE);
  CHECK(il_engine_close(eng) == IL_OK);
  CHECK(il_engine_close(eng) == IL_ERR_INVALID_HANDLE);
  int64_t open_handles = -1;
  CHECK(il_open_handles(&open_handles) == IL_OK && open_handles == 0);
  pthread_mutex_lock(&mu);
  CHECK(events == seen); /* nothing after unregister */
  pthread_mutex_unlock(&mu);
  puts("smoke: ok");
  return 0;
}
