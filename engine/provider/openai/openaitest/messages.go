package openaitest

import (
	"fmt"
	"strings"
)

// message is what the server reads of a request's message.
type message struct {
	Role       string `json:"role"`
	ToolCallID string `json:"tool_call_id"`
	ToolCalls  []struct {
		ID string `json:"id"`
	} `json:"tool_calls"`
}

// invalidToolOrder is why a request's messages break the order the Chat
// Completions API requires, worded as OpenAI's API says it, and the
// offending message's param ("messages.[3].role"); "" when they keep it.
// An assistant message with tool calls must be followed by one tool
// message per call before any other message, and a tool message must
// answer a call of the assistant message before it.
func invalidToolOrder(msgs []message) (why, param string) {
	var open []string // call ids of the last assistant message not yet answered
	at := 0           // that assistant message's index
	missing := func() string {
		return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: " + strings.Join(open, ", ")
	}
	for i, m := range msgs {
		if m.Role == "tool" {
			j := -1
			for k, id := range open {
				if id == m.ToolCallID {
					j = k
				}
			}
			if j < 0 {
				return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", fmt.Sprintf("messages.[%d].role", i)
			}
			open = append(open[:j], open[j+1:]...)
			continue
		}
		if len(open) > 0 {
			return missing(), fmt.Sprintf("messages.[%d].role", at)
		}
		open = open[:0]
		for _, c := range m.ToolCalls {
			if m.Role == "assistant" {
				open = append(open, c.ID)
			}
		}
		at = i
	}
	if len(open) > 0 {
		return missing(), fmt.Sprintf("messages.[%d].role", at)
	}
	return "", ""
}
