package web

import (
	"encoding/json"

	"github.com/interlock-dev/interlock/engine"
)

// Describe tells the model what the tool does and the JSON Schema of Args.
func (t *Tool) Describe() engine.ToolSpec {
	return engine.ToolSpec{
		Description: "Use a real browser: search the web, open a page (its readable text and links), " +
			"find lines containing a text in a page, or capture a screenshot. pause: true lets the user look at the page first.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"type":{"type":"string","enum":["search","open_page","find_in_page","capture_screenshot"]},` +
			`"query":{"type":"string","description":"search: what to search for"},` +
			`"url":{"type":"string","description":"an http or https URL"},` +
			`"pattern":{"type":"string","description":"find_in_page: the text to find, case-insensitive"},` +
			`"output_path":{"type":"string","description":"capture_screenshot: where to write the PNG"},` +
			`"full_page":{"type":"boolean"},"headless":{"type":"boolean"},"pause":{"type":"boolean"}},` +
			`"required":["type"]}`),
	}
}
