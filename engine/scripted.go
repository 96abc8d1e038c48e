package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// ScriptTurn is one model turn played by a ScriptedProvider.
type ScriptTurn struct {
	Text         string       `json:"text,omitempty"`
	ToolCalls    []ScriptCall `json:"toolCalls,omitempty"`
	Usage        *Usage       `json:"usage,omitempty"`
	ChunkDelayMS int          `json:"chunkDelayMs,omitempty"` // pause between streamed words
	// Hang makes the stream block after its text until the run is
	// interrupted (or the idle timeout fires): a model that stalls.
	Hang bool `json:"hang,omitempty"`
	// Error fails the turn with this message after its text.
	Error string `json:"error,omitempty"`
}

// ScriptCall is a tool call in a script.
type ScriptCall struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// ScriptedProvider plays model turns from a script, for demos and tests. It
// holds no per-session state: the turn it plays is the number of assistant
// turns since the last user message, so every new prompt replays the script.
type ScriptedProvider struct {
	turns []ScriptTurn
	// chunks are each turn's chunks, made once: every stream of a turn
	// reads the same ones (modelTurn copies what it keeps).
	chunks [][]Chunk
}

// NewScriptedProvider returns a provider playing turns.
func NewScriptedProvider(turns []ScriptTurn) *ScriptedProvider {
	p := &ScriptedProvider{turns: turns, chunks: make([][]Chunk, len(turns))}
	for i, t := range turns {
		var chunks []Chunk
		for _, w := range strings.SplitAfter(t.Text, " ") {
			if w != "" {
				chunks = append(chunks, Chunk{Text: w})
			}
		}
		for _, c := range t.ToolCalls {
			chunks = append(chunks, Chunk{ToolCall: &ToolCall{Name: c.Name, Args: c.Args}})
		}
		if t.Usage != nil {
			chunks = append(chunks, Chunk{Usage: t.Usage})
		}
		p.chunks[i] = chunks
	}
	return p
}

// ParseScript reads a script: a JSON array of turns or {"turns": [...]}.
// Unknown fields and tool calls without a name are errors, so a typo is
// reported instead of silently playing an empty turn.
func ParseScript(data []byte) ([]ScriptTurn, error) {
	data = bytes.TrimSpace(data)
	var turns []ScriptTurn
	var err error
	if len(data) > 0 && data[0] == '{' {
		var doc struct {
			Turns *[]ScriptTurn `json:"turns"`
		}
		if err = strictUnmarshal(data, &doc); err == nil && doc.Turns == nil {
			err = errors.New(`the object has no "turns"`)
		}
		if doc.Turns != nil {
			turns = *doc.Turns
		}
	} else {
		err = strictUnmarshal(data, &turns)
	}
	for i, t := range turns {
		for j, c := range t.ToolCalls {
			if err == nil && c.Name == "" {
				err = fmt.Errorf("turn %d, tool call %d has no \"name\"", i+1, j+1)
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: script: %v. A script is a JSON array of turns like "+
			`[{"text": "...", "toolCalls": [{"name": "bash", "args": {"command": "ls"}}]}], or {"turns": [...]}`, ErrInvalidArgument, err)
	}
	return turns, nil
}

func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("unexpected data after the script")
	}
	return nil
}

// Name identifies the provider in snapshots.
func (p *ScriptedProvider) Name() string { return "scripted" }

// Stream plays the next turn of the script.
func (p *ScriptedProvider) Stream(ctx context.Context, req ModelRequest) (Stream, error) {
	n := 0
	for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != RoleUser; i-- {
		if req.Messages[i].Role == RoleAssistant {
			n++
		}
	}
	if n >= len(p.turns) {
		return &scriptStream{}, nil // script exhausted: an empty final turn
	}
	t := &p.turns[n]
	return &scriptStream{turn: t, chunks: p.chunks[n], delay: time.Duration(t.ChunkDelayMS) * time.Millisecond}, nil
}

type scriptStream struct {
	turn   *ScriptTurn
	chunks []Chunk // the provider's: read only
	next   int
	delay  time.Duration
}

func (s *scriptStream) Recv(ctx context.Context) (Chunk, error) {
	if err := ctx.Err(); err != nil {
		return Chunk{}, context.Cause(ctx)
	}
	if s.next < len(s.chunks) {
		if s.delay > 0 && s.next > 0 {
			t := time.NewTimer(s.delay)
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
				return Chunk{}, context.Cause(ctx)
			}
		}
		s.next++
		return s.chunks[s.next-1], nil
	}
	switch {
	case s.turn == nil: // script exhausted
	case s.turn.Hang:
		<-ctx.Done()
		return Chunk{}, context.Cause(ctx)
	case s.turn.Error != "":
		return Chunk{}, fmt.Errorf("scripted model error: %s", s.turn.Error)
	}
	return Chunk{}, io.EOF
}

func (s *scriptStream) Close() error { return nil }
