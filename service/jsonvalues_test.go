package service

import (
	"strings"
	"testing"
)

func TestJSONValuesWithin(t *testing.T) {
	for _, tc := range []struct {
		body string
		max  int
		want bool
	}{
		{`{"a":1}`, 2, true},
		{`[1,2,3]`, 3, false},
		{`[1,2,3]`, 4, true},
		{`{"a":"x,y,[z{"}`, 2, true},    // commas and brackets in a string do not count
		{`{"a":"q\",[{,"}`, 2, true},    // nor after an escaped quote
		{`{"a":"q\\",[1,2]}`, 4, false}, // an escaped backslash ends the string
		{"[" + strings.Repeat("0,", 1000) + "0]", 1001, false},
		{"[" + strings.Repeat("0,", 1000) + "0]", 1002, true},
		{strings.Repeat("[", 100), 50, false},
		{``, 1, true},
	} {
		if got := JSONValuesWithin([]byte(tc.body), tc.max); got != tc.want {
			t.Errorf("JSONValuesWithin(%.40q, %d) = %v, want %v", tc.body, tc.max, got, tc.want)
		}
	}
}

func BenchmarkJSONValuesWithin(b *testing.B) {
	body := []byte(`{"Claim":{"Lines":[` + strings.Repeat(`{"Code":"A-1","Amount":12.5,"Note":"a \"quoted\" note"},`, 20000) + `{}]}}`)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		JSONValuesWithin(body, MaxJSONValues)
	}
}
