package engine

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine/store"
)

// teeJournal decorates a journal as a mirror would (issue 30's fleet):
// it sees what the store committed, in order.
type teeJournal struct {
	next  journal
	mu    sync.Mutex
	kinds []transitionKind
}

func (j *teeJournal) record(ctx context.Context, what string, ts ...transition) error {
	err := j.next.record(ctx, what, ts...)
	if err == nil {
		j.mu.Lock()
		for _, t := range ts {
			j.kinds = append(j.kinds, t.kind)
		}
		j.mu.Unlock()
	}
	return err
}

func TestAJournalDecoratingTheStoresSeesEveryTransitionItRecords(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e, err := Open(ctx, WithStore(store.Memory), WithProvider(NewScriptedProvider([]ScriptTurn{
		{ToolCalls: []ScriptCall{{Name: "ask", Args: []byte(`{"kind":"confirm","message":"go?"}`)}}}, {Text: "done"}})))
	require.NoError(t, err)
	defer e.Close()
	tee := &teeJournal{next: e.journal}
	e.journal = tee // before any session: every record goes through it

	s, err := e.NewSession(SessionOptions{})
	require.NoError(t, err)
	sub := s.Subscribe()
	_, done, err := s.Start(ctx, "hello")
	require.NoError(t, err)
	for ev, err := sub.Next(ctx); ev.Type != EventPaused; ev, err = sub.Next(ctx) {
		require.NoError(t, err)
	}
	require.NoError(t, s.Confirm("", true))
	out := <-done
	require.NoError(t, out.Err)
	require.Equal(t, StatusIdle, out.Result.Status)
	require.NoError(t, s.Close())

	audit, err := e.AuditLog(ctx, s.ID())
	require.NoError(t, err)
	require.Len(t, audit, 2, "the store wrote the pause and its answer")
	tee.mu.Lock()
	defer tee.mu.Unlock()
	require.Equal(t, []transitionKind{transSessionCreated, transRunStarted, transHistory, transPauseRaised,
		transPauseAnswered, transHistory, transHistory, transRunEnded, transSessionClosed}, tee.kinds)
}
