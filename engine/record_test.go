package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRecordingWithoutAJournalAllocatesNothing: without a store there is
// no journal, and appending to a session's history builds nothing for it
// (answering 10,000 parked pauses appends to 10,000 histories). Not
// parallel: it counts allocations.
func TestRecordingWithoutAJournalAllocatesNothing(t *testing.T) {
	e, err := Open(t.Context(), WithProvider(NewScriptedProvider(nil)))
	require.NoError(t, err)
	defer e.Close()
	s, err := e.NewSession(SessionOptions{})
	require.NoError(t, err)
	require.Nil(t, e.journal)
	msg := Message{Role: RoleUser, Text: "go on"}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.history = make([]Message, 0, 1000) // room: the history's growth is not what is counted
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		s.appendHistoryLocked(msg)
		s.appendResultsLocked(msg)
	}), "appending builds no transition for a journal there is not")
}
