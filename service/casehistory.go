package service

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
)

// CaseEvent is one event of a case's history.
type CaseEvent = db.CaseEvent

// CaseEvents returns every event of a case, in order.
func (s *Service) CaseEvents(ctx context.Context, who auth.Identity, id string) ([]CaseEvent, error) {
	const op = "service.CaseEvents"
	ca, err := s.memberCase(ctx, s.db, op, who, id)
	if err != nil {
		return nil, err
	}
	events, err := db.CaseEvents(ctx, s.db, id)
	for i := range events {
		events[i].Tenant = ca.rec.Tenant
	}
	return events, wrap(op, err)
}

// CaseEventsOf returns the events of those of caseIDs the caller is in
// the team of, by case, in one query: the batch behind the GraphQL history
// loader.
func (s *Service) CaseEventsOf(ctx context.Context, who auth.Identity, caseIDs []string) (map[string][]CaseEvent, error) {
	events, err := db.VisibleCaseEvents(ctx, s.db, who.UserID, caseIDs)
	return events, wrap("service.CaseEventsOf", err)
}

// PlanItemHistoryRecord is one transition of a plan item. The REST door
// gives it the reference engine's JSON shape.
type PlanItemHistoryRecord struct {
	// ID is the plan item id and the record's place in its history
	// ("<planItemId>_<n>").
	ID           string
	PlanItemID   string
	Name         string
	Index        int
	StageID      string
	CaseID       string
	CurrentState string
	HistoryState string
	Type         string
	Transition   string
	Repeating    bool
	Required     bool
	LastModified time.Time
	ModifiedBy   string
	EventType    string
	SequenceNr   int64
}

// PlanItemHistory returns the transitions of every plan item of a case,
// grouped per plan item in creation order (planItemID "" for all), rebuilt
// from the case's events.
func (s *Service) PlanItemHistory(ctx context.Context, who auth.Identity, caseID, planItemID string) ([][]PlanItemHistoryRecord, error) {
	const op = "service.PlanItemHistory"
	events, err := s.CaseEvents(ctx, who, caseID)
	if err != nil {
		return nil, err
	}
	var order []string
	byItem := map[string][]PlanItemHistoryRecord{}
	for _, e := range events {
		switch e.Type {
		case "PlanItemCreated", "PlanItemTransitioned", "RepetitionRuleEvaluated", "RequiredRuleEvaluated", "PlanItemMigrated":
		default:
			continue
		}
		var p struct {
			PlanItemID   string `json:"planItemId"`
			Name         string `json:"name"`
			Index        *int   `json:"index"`
			StageID      string `json:"stageId"`
			CurrentState string `json:"currentState"`
			HistoryState string `json:"historyState"`
			Type         string `json:"type"`
			Transition   string `json:"transition"`
			Repeating    *bool  `json:"repeating"`
			Required     *bool  `json:"required"`
			IsRepeating  *bool  `json:"isRepeating"`
			IsRequired   *bool  `json:"isRequired"`
		}
		if err := json.Unmarshal(e.Payload, &p); err != nil || p.PlanItemID == "" {
			continue
		}
		if planItemID != "" && p.PlanItemID != planItemID {
			continue
		}
		rows, ok := byItem[p.PlanItemID]
		if !ok {
			order = append(order, p.PlanItemID)
		}
		// A rule event names only what it decided: the row shows the
		// item as the previous one did, with that decision merged in.
		var rec PlanItemHistoryRecord
		if len(rows) > 0 {
			rec = rows[len(rows)-1]
		}
		rec.PlanItemID, rec.Name, rec.CaseID, rec.Type = p.PlanItemID, p.Name, caseID, p.Type
		if e.Type == "PlanItemCreated" || e.Type == "PlanItemTransitioned" || e.Type == "PlanItemMigrated" {
			rec.StageID, rec.CurrentState, rec.HistoryState, rec.Transition = p.StageID, p.CurrentState, p.HistoryState, p.Transition
		}
		if p.Index != nil {
			rec.Index = *p.Index
		}
		for _, b := range []struct{ from, to *bool }{{p.Repeating, &rec.Repeating}, {p.IsRepeating, &rec.Repeating},
			{p.Required, &rec.Required}, {p.IsRequired, &rec.Required}} {
			if b.from != nil {
				*b.to = *b.from
			}
		}
		rec.ID = p.PlanItemID + "_" + strconv.Itoa(len(rows))
		rec.LastModified = e.At
		rec.ModifiedBy, rec.EventType, rec.SequenceNr = e.UserID, e.Type, e.Seq
		byItem[p.PlanItemID] = append(rows, rec)
	}
	if planItemID != "" && len(order) == 0 {
		return nil, PlanItemNotFound(op, planItemID)
	}
	out := make([][]PlanItemHistoryRecord, 0, len(order))
	for _, id := range order {
		out = append(out, byItem[id])
	}
	return out, nil
}
