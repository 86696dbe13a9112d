package service

// MaxJSONValues bounds the values (numbers, strings, objects, arrays,
// booleans, nulls) of one JSON request body. Decoded into Go values, each
// takes tens of bytes however few it took in the body: eight million
// zeros, 16 MB of body, took 600 MB of memory to decode. A quarter of a
// million holds any case file the size limit lets in that is not made of
// bare numbers, and bounds one body's decoding to about 15 MB.
const MaxJSONValues = 250_000

// JSONValuesWithin reports whether the JSON text b holds at most max
// values, counted without decoding: every comma and every opening bracket
// outside a string starts one. Invalid JSON is left to the decoder.
func JSONValuesWithin(b []byte, max int) bool {
	n := 1
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ',' || c == '[' || c == '{':
			n++
			if n > max {
				return false
			}
		}
	}
	return true
}
