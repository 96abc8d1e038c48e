package main

// appendCamelJSON appends src, compact JSON as encoding/json writes it,
// to dst with every object key renamed from snake_case to camelCase
// ("call_id" -> "callId") the way node/lib/convert.js's camelKey does: each
// "_" followed by a lower-case letter or a digit becomes that character
// upper-cased. The values of opaqueKeys (user data) are copied unchanged.
// Keys are renamed in their encoded form: keys holding escapes (never
// produced from the engine's struct tags) keep them as they are.
func appendCamelJSON(dst, src []byte) []byte {
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
			if opaqueKey(key) {
				valEnd := valueEnd(src, end+1)
				dst = append(dst, src[i:valEnd]...)
				i = valEnd
				continue
			}
			dst = append(dst, '"')
			dst = appendCamelKey(dst, key)
			dst = append(dst, '"')
			i = end
			continue
		}
		dst = append(dst, src[i:end]...)
		i = end
	}
	return dst
}

// opaqueKey reports whether the value of key is user data that keeps its
// keys (convert.js's OPAQUE: tool-call arguments, skipped session ids,
// HTTP headers).
func opaqueKey(key []byte) bool {
	switch string(key) {
	case "args", "skipped", "headers":
		return true
	}
	return false
}

func appendCamelKey(dst, key []byte) []byte {
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c == '_' && i+1 < len(key) {
			if n := key[i+1]; n >= 'a' && n <= 'z' {
				dst = append(dst, n-'a'+'A')
				i++
				continue
			} else if n >= '0' && n <= '9' {
				dst = append(dst, n)
				i++
				continue
			}
		}
		dst = append(dst, c)
	}
	return dst
}

// stringEnd returns the index just past the JSON string starting at src[i] ('"').
func stringEnd(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(src)
}

// valueEnd returns the index just past the JSON value starting at src[i].
func valueEnd(src []byte, i int) int {
	depth := 0
	for j := i; j < len(src); {
		switch src[j] {
		case '"':
			j = stringEnd(src, j)
			if depth == 0 {
				return j
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return j // the end of the enclosing object
			}
			depth--
			if depth == 0 {
				return j + 1
			}
		case ',':
			if depth == 0 {
				return j
			}
		}
		j++
	}
	return len(src)
}
