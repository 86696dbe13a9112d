package cmmn

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkParse parses the claims model (about 22 KB, two cases, 30 plan
// items, 19 expressions): read, resolve, validate and compile.
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(testdata, "claims.xml"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseLarge parses the largest reference model (300 KB, mostly
// process task report templates), when CASEGRAPH_CONFORMANCE_MODELS names
// the folder of the reference models.
func BenchmarkParseLarge(b *testing.B) {
	dir := os.Getenv("CASEGRAPH_CONFORMANCE_MODELS")
	if dir == "" {
		b.Skip("set CASEGRAPH_CONFORMANCE_MODELS=<folder of the reference engine's CMMN models> to run this benchmark")
	}
	data, err := os.ReadFile(filepath.Join(dir, "travelrequest.xml"))
	if err != nil {
		b.Skip(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
