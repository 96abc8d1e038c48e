package engine

import (
	"bytes"
	"encoding/json"
)

// ParseWireJSON parses data in the wire format (AppendWireJSON's camelCase
// keys) into v, whose JSON tags are the engine's snake_case: a snapshot a
// fleet's hub keeps, read back as the Snapshot it was. A key with a digit
// after its underscore ("a_1", written "a1") is not told apart; no engine
// type has one.
func ParseWireJSON(data []byte, v any) error {
	return json.Unmarshal(appendSnakeJSON(make([]byte, 0, len(data)+len(data)/16), data), v)
}

// appendSnakeJSON is appendCamelJSON undone: object keys to snake_case,
// the values of opaque keys (user data) and escaped keys as they are.
func appendSnakeJSON(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		c := src[i]
		if c != '"' {
			dst = append(dst, c)
			i++
			continue
		}
		end := stringEnd(src, i)
		if end < len(src) && src[end] == ':' { // an object key
			key := src[i+1 : end-1]
			if opaqueKey(key) || bytes.IndexByte(key, '\\') >= 0 {
				valEnd := valueEnd(src, end+1)
				dst = append(dst, src[i:valEnd]...)
				i = valEnd
				continue
			}
			dst = append(dst, '"')
			for _, k := range key {
				if k >= 'A' && k <= 'Z' {
					dst = append(dst, '_', k-'A'+'a')
				} else {
					dst = append(dst, k)
				}
			}
			dst = append(dst, '"')
			i = end
			continue
		}
		dst = append(dst, src[i:end]...)
		i = end
	}
	return dst
}
