package db

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// caseEventBatchRow is the events one command wrote on a case: one row
// where a row per event made the events the costliest write of a command
// (a start case wrote 23). Events is a JSON array of {"type", "payload"},
// each payload's bytes as the engine encoded them; FirstSeq..LastSeq are
// their sequence numbers. The key (case, first_seq) is what refuses a
// second command from the same read version.
type caseEventBatchRow struct {
	bun.BaseModel `bun:"table:case_event_batches"`

	CaseID        string    `bun:"case_id,pk"`
	FirstSeq      int64     `bun:"first_seq,pk"`
	LastSeq       int64     `bun:"last_seq"`
	UserID        string    `bun:"user_id"`
	At            time.Time `bun:"at"`
	CorrelationID string    `bun:"correlation_id"`
	Events        string    `bun:"events"`
}

// caseEventRow is one event as case archives hold it: archives keep the
// per-event form they had when events were a row each, so that archives
// written before and after the batches restore alike.
type caseEventRow struct {
	CaseID  string
	Seq     int64
	Type    string
	Payload string
	UserID  string
	At      time.Time
	// CorrelationID ties the event to the request that caused it.
	CorrelationID string
}

// batchedEvent is an element of a batch's events array.
type batchedEvent struct {
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
}

// newBatch makes the batch of events, which must be of one case, with
// consecutive sequence numbers, and share user, time and correlation id.
// The array is put together by hand so that each payload keeps its bytes
// (json.Marshal would compact and escape them again).
func newBatch(events []caseEventRow) (caseEventBatchRow, error) {
	first := events[0]
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i, e := range events {
		if !json.Valid([]byte(e.Payload)) {
			return caseEventBatchRow{}, fmt.Errorf("db: event %d of case %s: payload is not JSON", e.Seq, e.CaseID)
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		appendBatchedEvent(&buf, e.Type, []byte(e.Payload))
	}
	buf.WriteByte(']')
	return caseEventBatchRow{CaseID: first.CaseID, FirstSeq: first.Seq, LastSeq: first.Seq + int64(len(events)) - 1,
		UserID: first.UserID, At: first.At, CorrelationID: first.CorrelationID, Events: buf.String()}, nil
}

// appendBatchedEvent appends one element of a batch's events array.
func appendBatchedEvent(buf *bytes.Buffer, typ string, payload []byte) {
	buf.WriteString(`{"type":`)
	// A string always encodes.
	t, _ := json.Marshal(typ)
	buf.Write(t)
	buf.WriteString(`,"payload":`)
	buf.Write(payload)
	buf.WriteByte('}')
}

// expand returns the events of a batch, one per sequence number.
func (r caseEventBatchRow) expand() ([]caseEventRow, error) {
	var events []batchedEvent
	if err := json.Unmarshal([]byte(r.Events), &events); err != nil {
		return nil, fmt.Errorf("db: decode events %d-%d of case %s: %w", r.FirstSeq, r.LastSeq, r.CaseID, err)
	}
	if int64(len(events)) != r.LastSeq-r.FirstSeq+1 {
		return nil, fmt.Errorf("db: events %d-%d of case %s hold %d events", r.FirstSeq, r.LastSeq, r.CaseID, len(events))
	}
	out := make([]caseEventRow, len(events))
	for i, e := range events {
		out[i] = caseEventRow{CaseID: r.CaseID, Seq: r.FirstSeq + int64(i), Type: e.Type, Payload: string(e.Payload),
			UserID: r.UserID, At: r.At, CorrelationID: r.CorrelationID}
	}
	return out, nil
}

// addEvents adds the command's events to the write batch: one row.
func addEvents(b *stmtBatch, caseID string, w CaseWrite) error {
	batch, err := eventBatchOf(caseID, w)
	if err != nil || batch == nil {
		return err
	}
	b.addPrepared("insert case events", insertEventsWrite, []caseEventBatchRow{*batch}, b.idb.NewInsert().Model(batch))
	return nil
}

// eventBatchOf is the event row of w's events; nil when there are none.
func eventBatchOf(caseID string, w CaseWrite) (*caseEventBatchRow, error) {
	if len(w.Events) == 0 {
		return nil, nil
	}
	// The payloads come from json.Marshal: unlike an archive's (newBatch),
	// they need no check that they are JSON.
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i, e := range w.Events {
		payload, err := e.MarshalPayload()
		if err != nil {
			return nil, fmt.Errorf("db: encode event %s: %w", e.Type, err)
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		appendBatchedEvent(&buf, e.Type, payload)
	}
	buf.WriteByte(']')
	first := w.State.Sequence - int64(len(w.Events)) + 1
	return &caseEventBatchRow{CaseID: caseID, FirstSeq: first, LastSeq: w.State.Sequence, UserID: w.User, At: w.At,
		CorrelationID: w.CorrelationID, Events: buf.String()}, nil
}

// batchesOf groups archived events into batches: each run of consecutive
// sequence numbers of one case with the same user, time and correlation
// id, which is what one command wrote.
func batchesOf(events []caseEventRow) ([]caseEventBatchRow, error) {
	events = slices.Clone(events)
	slices.SortFunc(events, func(a, b caseEventRow) int {
		return cmp.Or(strings.Compare(a.CaseID, b.CaseID), cmp.Compare(a.Seq, b.Seq))
	})
	var out []caseEventBatchRow
	for start := 0; start < len(events); {
		end := start + 1
		for end < len(events) && sameCommand(events[end-1], events[end]) {
			end++
		}
		batch, err := newBatch(events[start:end])
		if err != nil {
			return nil, err
		}
		out = append(out, batch)
		start = end
	}
	return out, nil
}

// sameCommand reports whether event b, which follows a, belongs with it.
func sameCommand(a, b caseEventRow) bool {
	return a.CaseID == b.CaseID && b.Seq == a.Seq+1 && a.UserID == b.UserID && a.At.Equal(b.At) && a.CorrelationID == b.CorrelationID
}

// CaseEvent is one stored event.
type CaseEvent struct {
	CaseID  string
	Tenant  string // the case's tenant, filled by the caller that knows it
	Seq     int64
	Type    string
	Payload json.RawMessage
	UserID  string
	At      time.Time
	// CorrelationID is the id of the request (or command) that caused it.
	CorrelationID string
}

// appendEvents appends the events of batch to out.
func appendEvents(out []CaseEvent, batch caseEventBatchRow, tenant string) ([]CaseEvent, error) {
	events, err := batch.expand()
	if err != nil {
		return nil, err
	}
	for _, e := range events {
		out = append(out, CaseEvent{CaseID: e.CaseID, Tenant: tenant, Seq: e.Seq, Type: e.Type, Payload: json.RawMessage(e.Payload),
			UserID: e.UserID, At: e.At, CorrelationID: e.CorrelationID})
	}
	return out, nil
}

// CaseEvents returns the events of a case in order.
func CaseEvents(ctx context.Context, idb bun.IDB, caseID string) ([]CaseEvent, error) {
	var rows []caseEventBatchRow
	if err := idb.NewSelect().Model(&rows).Where("case_id = ?", caseID).Order("first_seq").Scan(ctx); err != nil {
		return nil, fmt.Errorf("db: select case events: %w", err)
	}
	out := []CaseEvent{}
	for _, r := range rows {
		var err error
		if out, err = appendEvents(out, r, ""); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// VisibleCaseEvents returns the events of those of caseIDs visible to
// userID, in order, by case.
func VisibleCaseEvents(ctx context.Context, idb bun.IDB, userID string, caseIDs []string) (map[string][]CaseEvent, error) {
	out := make(map[string][]CaseEvent, len(caseIDs))
	if len(caseIDs) == 0 {
		return out, nil
	}
	var rows []struct {
		caseEventBatchRow
		Tenant string `bun:"tenant"`
	}
	err := idb.NewSelect().TableExpr("case_event_batches AS e").
		ColumnExpr("e.case_id, e.first_seq, e.last_seq, e.user_id, e.at, e.correlation_id, e.events, c.tenant").
		Join("JOIN cases AS c ON c.id = e.case_id").
		Where("e.case_id IN (?)", bun.List(caseIDs)).
		Where(visibleCase("c.id", "c.tenant"), userID).
		OrderExpr("e.case_id, e.first_seq").Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("db: select case events: %w", err)
	}
	for _, r := range rows {
		if out[r.CaseID], err = appendEvents(out[r.CaseID], r.caseEventBatchRow, r.Tenant); err != nil {
			return nil, err
		}
	}
	return out, nil
}
