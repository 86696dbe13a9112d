package service

import (
	"os"
	"testing"
)

// BenchmarkDefinitionCache compares parsing a definition with finding it
// in the cache: by content (validate, deploy: the document is hashed) and
// by hash (every case command).
func BenchmarkDefinitionCache(b *testing.B) {
	xml, err := os.ReadFile("../testdata/cases/incident.xml")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("parse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := newDefinitionCache(1).get("x", xml); err != nil {
				b.Fatal(err)
			}
		}
	})
	cache := newDefinitionCache(8)
	if _, err := cache.parse(xml); err != nil {
		b.Fatal(err)
	}
	b.Run("cached-by-content", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := cache.parse(xml); err != nil {
				b.Fatal(err)
			}
		}
	})
	hash := hashOf(xml)
	b.Run("cached-by-hash", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := cache.cached(hash); !ok {
				b.Fatal("miss")
			}
		}
	})
}

func TestDefinitionCacheEvicts(t *testing.T) {
	xml, err := os.ReadFile("../testdata/cases/permit.xml")
	if err != nil {
		t.Fatal(err)
	}
	c := newDefinitionCache(2)
	for _, h := range []string{"a", "b", "c"} {
		if _, err := c.get(h, xml); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := c.cached("a"); ok {
		t.Error("the least recently used entry stayed")
	}
	if _, ok := c.cached("c"); !ok {
		t.Error("the newest entry is gone")
	}
}
