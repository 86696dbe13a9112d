package db

import (
	"container/list"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/casegraph/casegraph/engine"
)

// Decoding a case's snapshot was a tenth of the server's CPU per command
// (docs/performance.md), and the next command on a case most often comes
// to the replica that wrote it last: a claim is followed by its complete.
// So each process keeps the states it wrote, by case, and a read whose row
// carries the very snapshot written starts from a copy of the state kept
// (engine.Case.Clone, several times cheaper than decoding) instead of
// decoding it.
//
// An entry serves only a row with its version and byte for byte its
// snapshot: a write that was rolled back after it was kept, or a newer one
// from another replica, carries other bytes and is decoded as before. That
// makes the cache safe to share between databases and replicas without
// any invalidation: it can only answer what decoding the row would. What
// it must guarantee is that the state kept is the one its snapshot decodes
// to; in tests every answer is checked against decoding (verifyCachedCase).

// Bounds of the snapshot cache: the snapshots' bytes it holds (a decoded
// state takes about 3.4 times its snapshot's bytes, so a full cache holds
// about 35 MiB), and the largest one it keeps. The oldest write goes
// first.
const (
	maxCachedSnapshotBytes = 8 << 20
	maxCachedSnapshot      = 256 << 10
)

// cases is the process's snapshot cache.
var cases = newSnapshotCache(maxCachedSnapshotBytes)

type snapshotCache struct {
	mu     sync.Mutex
	byID   map[string]*list.Element
	order  list.List // of *cachedCase, the oldest first
	bytes  int
	limit  int
	hits   int64
	misses int64
}

// cachedCase is a case's state as a write stored it. state is never
// changed nor handed out: readers get clones of it.
type cachedCase struct {
	id       string
	version  int64
	snapshot string
	state    *engine.Case
}

func newSnapshotCache(limit int) *snapshotCache {
	return &snapshotCache{byID: map[string]*list.Element{}, limit: limit}
}

// keep records that case id's row now holds version with snapshot, the
// encoding of state. state must be the caller's own copy, which nothing
// changes afterwards.
func (s *snapshotCache) keep(id string, version int64, snapshot string, state *engine.Case) {
	if len(snapshot) > maxCachedSnapshot {
		s.forget(id)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.byID[id]; ok {
		if el.Value.(*cachedCase).version > version {
			return
		}
		s.remove(el)
	}
	s.byID[id] = s.order.PushBack(&cachedCase{id: id, version: version, snapshot: snapshot, state: state})
	s.bytes += len(snapshot)
	for s.bytes > s.limit {
		s.remove(s.order.Front())
	}
}

// forget drops what is kept of case id.
func (s *snapshotCache) forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.byID[id]; ok {
		s.remove(el)
	}
}

func (s *snapshotCache) remove(el *list.Element) {
	e := s.order.Remove(el).(*cachedCase)
	delete(s.byID, e.id)
	s.bytes -= len(e.snapshot)
}

// state returns a copy of the state kept for row, or false when none
// matches its version and snapshot. An entry older than the row is
// dropped; one newer (the row was read before that write) stays.
func (s *snapshotCache) state(row caseRow) (*engine.Case, bool) {
	s.mu.Lock()
	el, ok := s.byID[row.ID]
	var e *cachedCase
	if ok {
		e = el.Value.(*cachedCase)
		switch {
		case e.version == row.Version && e.snapshot == row.Snapshot:
			s.hits++
		case e.version <= row.Version:
			s.remove(el)
			ok = false
		default:
			ok = false
		}
	}
	if !ok {
		s.misses++
	}
	s.mu.Unlock()
	if !ok {
		return nil, false
	}
	// Clone reads the kept state, which nobody changes, outside the lock.
	return e.state.Clone(), true
}

// verifyCachedCase is whether every state the cache answers is compared
// with the one decoding its row gives: in tests, so that a field the
// engine keeps in memory in another form than its JSON reads back (a time
// with a monotonic reading, 5 against 5.0, an empty map against none)
// fails the suite instead of changing a command's outcome.
var verifyCachedCase = testing.Testing()

// checkCachedCase panics when cached is not the case that decoding row
// gives.
func checkCachedCase(row caseRow, cached *engine.Case) {
	var decoded engine.Case
	if err := decoded.UnmarshalJSON([]byte(row.Snapshot)); err != nil {
		panic(fmt.Sprintf("db: snapshot cache: case %s version %d: the snapshot kept does not decode: %v", row.ID, row.Version, err))
	}
	if where := firstDifference(reflect.ValueOf(cached).Elem(), reflect.ValueOf(&decoded).Elem(), "Case"); where != "" {
		panic(fmt.Sprintf("db: snapshot cache: case %s version %d: the state kept differs from its snapshot decoded at %s", row.ID, row.Version, where))
	}
}

// firstDifference is the path of the first place where a and b, values
// of one type, are not reflect.DeepEqual, with both values there; "" when
// they are.
func firstDifference(a, b reflect.Value, path string) string {
	if reflect.DeepEqual(a.Interface(), b.Interface()) {
		return ""
	}
	switch a.Kind() {
	case reflect.Pointer:
		if !a.IsNil() && !b.IsNil() {
			return firstDifference(a.Elem(), b.Elem(), path)
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if d := firstDifference(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); d != "" {
				return d
			}
		}
	case reflect.Slice:
		if a.Len() == b.Len() && a.IsNil() == b.IsNil() {
			for i := range a.Len() {
				if d := firstDifference(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); d != "" {
					return d
				}
			}
		}
	case reflect.Map:
		if a.Len() == b.Len() && a.IsNil() == b.IsNil() {
			for _, k := range a.MapKeys() {
				if bv := b.MapIndex(k); bv.IsValid() {
					if d := firstDifference(a.MapIndex(k), bv, fmt.Sprintf("%s[%v]", path, k)); d != "" {
						return d
					}
				}
			}
		}
	case reflect.Interface:
		if !a.IsNil() && !b.IsNil() && a.Elem().Type() == b.Elem().Type() {
			return firstDifference(a.Elem(), b.Elem(), path)
		}
	}
	return fmt.Sprintf("%s: kept %#v, decoded %#v", path, a.Interface(), b.Interface())
}

// SnapshotCacheStats are the snapshot cache's figures since the process
// started: reads that started from a kept state, reads that decoded their
// snapshot, and the snapshot bytes kept now.
type SnapshotCacheStats struct {
	Hits, Misses int64
	Bytes        int
}

// CachedSnapshots returns the snapshot cache's figures.
func CachedSnapshots() SnapshotCacheStats {
	cases.mu.Lock()
	defer cases.mu.Unlock()
	return SnapshotCacheStats{Hits: cases.hits, Misses: cases.misses, Bytes: cases.bytes}
}
