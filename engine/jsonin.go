package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
)

// DecodeStrict decodes data into v, rejecting unknown fields and trailing
// data, as a json.Decoder with DisallowUnknownFields does. A flat struct
// (the arguments of calls made per tool call or pause: a tool's result, a
// pause request) is decoded with json.Unmarshal and its keys checked by
// unknownKey, without a Decoder and its buffers for each call (~1.2 KB of
// the ~5 KB a call of a JS tool allocated). Anything else, and any error,
// goes through the Decoder, so that errors read the same.
func DecodeStrict(data []byte, v any) error {
	if known := flatFields(reflect.TypeOf(v)); known != nil && json.Unmarshal(data, v) == nil {
		if key, ok := unknownKey(data, known); ok {
			if key != "" {
				return fmt.Errorf("json: unknown field %q", key)
			}
			return nil
		}
	}
	return decodeWithDecoder(data, v)
}

// decodeWithDecoder is DecodeStrict by a json.Decoder: DisallowUnknownFields
// and nothing after the value.
func decodeWithDecoder(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.Decode(new(json.RawMessage)) != io.EOF {
		err = errors.New("unexpected data after the JSON value")
	}
	return err
}

// flatTypes caches flatFields by type.
var flatTypes sync.Map // reflect.Type -> []string (empty: not flat)

// flatFields returns the JSON names of the fields of *struct type t when
// every field is a scalar, a pointer to one or a json.RawMessage (no
// nested object to check for unknown fields), else nil.
func flatFields(t reflect.Type) []string {
	if names, ok := flatTypes.Load(t); ok {
		return names.([]string)
	}
	names := []string{}
	if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
		st := t.Elem()
		for i := range st.NumField() {
			f := st.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || f.Anonymous || name == "-" || !flatKind(f.Type) {
				names = []string{}
				break
			}
			if name == "" {
				name = f.Name
			}
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		names = nil
	}
	flatTypes.Store(t, names)
	return names
}

func flatKind(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return true
	}
	return t == reflect.TypeFor[json.RawMessage]()
}

// unknownKey returns the first key of the JSON object data that matches
// none of known the way encoding/json matches them (case-insensitively),
// "" when all do. data must be valid JSON (json.Unmarshal accepted it); ok
// is false when it cannot tell: data is not an object, or a key holds an
// escape.
func unknownKey(data []byte, known []string) (key string, ok bool) {
	i := skipSpace(data, 0)
	if i == len(data) || data[i] != '{' {
		return "", false
	}
	i = skipSpace(data, i+1)
	for i < len(data) && data[i] == '"' {
		end := bytes.IndexByte(data[i+1:], '"') + i + 1
		k := data[i+1 : end]
		if bytes.IndexByte(k, '\\') >= 0 {
			return "", false
		}
		if !knownKey(k, known) && key == "" {
			key = string(k)
		}
		i = skipSpace(data, end+1) + 1 // the colon
		i = skipSpace(data, skipValue(data, skipSpace(data, i)))
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	return key, true
}

func knownKey(k []byte, known []string) bool {
	for _, name := range known {
		if string(k) == name || bytes.EqualFold(k, []byte(name)) {
			return true
		}
	}
	return false
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just after the valid JSON value at data[i:].
func skipValue(data []byte, i int) int {
	depth := 0
	for ; i < len(data); i++ {
		switch data[i] {
		case '"':
			for i++; data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // the end of the enclosing object: a scalar ended before it
			}
			if depth--; depth == 0 {
				return i + 1
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
	}
	return i
}
