// il_free (declared in interlock.h) is plain C: freeing a string the
// library returned takes no Go scheduler slot, so a caller on a thread of
// its own (Node's) enters Go once per call that returns a string, not twice.

#include <stdlib.h>

void il_free(char *p) { free(p); }
