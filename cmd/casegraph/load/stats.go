package load

import (
	"fmt"
	"io"
	"math/bits"
	"sort"
	"sync"
	"text/tabwriter"
	"time"
)

// subBuckets per power of two of microseconds: a recorded latency is off
// by at most 1/32 (3 %), and a histogram is a fixed 2,048 counters however
// long the run, so memory stays bounded.
const (
	subBits    = 5
	subBuckets = 1 << subBits
	maxBuckets = 64 * subBuckets
)

// histogram counts latencies in log-linear buckets.
type histogram struct {
	counts [maxBuckets]uint64
	n      uint64
	max    time.Duration
}

func bucketOf(d time.Duration) int {
	us := uint64(d / time.Microsecond)
	if us < subBuckets {
		return int(us)
	}
	// The top subBits+1 bits of us pick the bucket: the power of two, then
	// the sub-bucket within it.
	exp := bits.Len64(us) - subBits - 1
	return (exp+1)*subBuckets + int(us>>uint(exp)) - subBuckets
}

// bucketUpper is the largest latency bucket i holds.
func bucketUpper(i int) time.Duration {
	if i < subBuckets {
		return time.Duration(i) * time.Microsecond
	}
	exp := i/subBuckets - 1
	mant := uint64(i%subBuckets + subBuckets)
	return time.Duration(((mant+1)<<uint(exp))-1) * time.Microsecond
}

func (h *histogram) record(d time.Duration) {
	h.counts[bucketOf(d)]++
	h.n++
	if d > h.max {
		h.max = d
	}
}

// quantile returns the latency below which fraction q of the samples lie.
func (h *histogram) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(q*float64(h.n) + 0.5)
	if rank < 1 {
		rank = 1
	}
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return min(bucketUpper(i), h.max)
		}
	}
	return h.max
}

// maxErrorSamples bounds the error messages kept for the report.
const maxErrorSamples = 5

// opStats is what one operation measured.
type opStats struct {
	hist   histogram
	errors uint64
}

// Stats collects every operation's latencies and errors; it is safe for
// concurrent use.
type Stats struct {
	mu      sync.Mutex
	ops     map[string]*opStats
	samples []string
	total   uint64
	errors  uint64
}

func newStats() *Stats { return &Stats{ops: map[string]*opStats{}} }

func (s *Stats) op(name string) *opStats {
	o := s.ops[name]
	if o == nil {
		o = &opStats{}
		s.ops[name] = o
	}
	return o
}

// record notes one request of op: its latency when it succeeded, its
// error otherwise.
func (s *Stats) record(op string, d time.Duration, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.op(op)
	s.total++
	if err != nil {
		o.errors++
		s.errors++
		if len(s.samples) < maxErrorSamples {
			s.samples = append(s.samples, op+": "+err.Error())
		}
		return
	}
	o.hist.record(d)
}

func (s *Stats) counts() (total, errors uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total, s.errors
}

// Errors is the number of failed requests.
func (s *Stats) Errors() uint64 {
	_, e := s.counts()
	return e
}

// Report prints, per operation, the throughput over elapsed, the
// latency percentiles and the error count, then the total errors.
func (s *Stats) Report(w io.Writer, elapsed time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.ops))
	for name := range s.ops {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool { return opOrder(names[i]) < opOrder(names[j]) })
	secs := elapsed.Seconds()
	if secs <= 0 {
		secs = 1
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "operation\tok\tper second\tp50\tp95\tp99\terrors\t")
	for _, name := range names {
		o := s.ops[name]
		h := &o.hist
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%s\t%s\t%s\t%d\t\n", name, h.n, float64(h.n)/secs,
			ms(h.quantile(0.50)), ms(h.quantile(0.95)), ms(h.quantile(0.99)), o.errors)
	}
	tw.Flush()
	fmt.Fprintf(w, "requests: %d in %s (%.1f per second)\n", s.total, elapsed.Round(time.Millisecond), float64(s.total)/secs)
	fmt.Fprintf(w, "errors: %d\n", s.errors)
	for _, e := range s.samples {
		fmt.Fprintf(w, "  %s\n", e)
	}
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
}

// opOrder lists the operations in the order a flow makes them.
func opOrder(name string) int {
	for i, op := range Operations {
		if op == name {
			return i
		}
	}
	return len(Operations)
}
