package service

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/engine"
)

// DebugEvent is a stored event with the metadata the reference engine's
// debug view shows around it (its modelEvent header).
type DebugEvent struct {
	CaseEvent
	// Actor is the case's place in its case tree: "Case[<root>]/Case[<id>]".
	Actor string
	// User is the event's user as the case's tenant knew it when read.
	User EventUser
	// Path is the place in the plan of the plan item the event is about;
	// "" for an event about no plan item.
	Path string
}

// EventUser is the user of an event: id, origin (Tenant, Platform, IDP, or
// the engine's own TimerService), tenant roles and consent groups.
type EventUser struct {
	UserID      string
	Origin      string
	TenantRoles []string
	Groups      []string
}

// DebugEvents returns the events of a case numbered from `from` to `to`,
// both included (the first is 1), for the reference engine's debug route.
// The reference opens it to every user of the case's tenant and to
// platform owners; here, as everywhere, only the case's team sees the
// case, which filters it to the caller's tenants and more: anyone else
// gets NotFound.
func (s *Service) DebugEvents(ctx context.Context, who auth.Identity, modelID string, from, to int64) ([]DebugEvent, error) {
	const op = "service.DebugEvents"
	ca, err := s.memberCase(ctx, s.db, op, who, modelID)
	if err != nil {
		return nil, err
	}
	events, err := db.CaseEvents(ctx, s.db, modelID)
	if err != nil {
		return nil, wrap(op, err)
	}
	for i := range events {
		events[i].Tenant = ca.rec.Tenant
	}
	var page []CaseEvent
	for _, e := range events {
		if e.Seq >= from && e.Seq <= to {
			page = append(page, e)
		}
	}
	if len(page) == 0 {
		return []DebugEvent{}, nil
	}
	chain, err := db.CaseAncestors(ctx, s.db, modelID)
	if err != nil {
		return nil, wrap(op, err)
	}
	actor := "Case[" + strings.Join(chain, "]/Case[") + "]"
	var users []string
	for _, e := range page {
		if !slices.Contains(users, e.UserID) {
			users = append(users, e.UserID)
		}
	}
	tenant := page[0].Tenant
	roles, err := db.UsersTenantRoles(ctx, s.db, tenant, users)
	if err != nil {
		return nil, wrap(op, err)
	}
	tenants, err := db.UsersTenants(ctx, s.db, users)
	if err != nil {
		return nil, wrap(op, err)
	}
	out := make([]DebugEvent, len(page))
	for i, e := range page {
		u := EventUser{UserID: e.UserID, Origin: OriginIDP, TenantRoles: roles[e.UserID], Groups: []string{}}
		switch {
		case e.UserID == timerService.UserID:
			u.Origin = timerService.UserID
		case s.anonymous != nil && e.UserID == s.anonymous.User.ID:
			// The configured anonymous user starts anonymous requests'
			// cases; events keep no origin, so it is told by its id.
			u.Origin = OriginAnonymous
		case slices.Contains(tenants[e.UserID], tenant):
			u.Origin = OriginTenant
		case len(tenants[e.UserID]) > 0:
			u.Origin = OriginPlatform
		}
		if u.TenantRoles == nil {
			u.TenantRoles = []string{}
		}
		out[i] = DebugEvent{CaseEvent: e, Actor: actor, User: u, Path: planItemPath(ca.c, eventPlanItem(e.Payload))}
	}
	return out, nil
}

// eventPlanItem is the plan item an event is about: its planItemId, or
// the taskId of a human-task event (a task's id is its plan item's).
func eventPlanItem(payload []byte) string {
	var ids struct {
		PlanItemID string `json:"planItemId"`
		TaskID     string `json:"taskId"`
	}
	if json.Unmarshal(payload, &ids) != nil {
		return ""
	}
	return cmp.Or(ids.PlanItemID, ids.TaskID)
}

// planItemPath is a plan item's place in the plan, in the reference
// engine's actor-path style: the case plan first, then each stage down to
// the item, each as Type[name], a repetition's index after a dot:
// "Case[Plan]/Stage[Review]/HumanTask[Approve.1]". The reference does not
// document its format; clients split it on '/'. "" for no plan item.
func planItemPath(c *engine.Case, id string) string {
	if id == "" {
		return ""
	}
	byID := make(map[string]*engine.PlanItem, len(c.PlanItems))
	for _, p := range c.PlanItems {
		byID[p.ID] = p
	}
	var parts []string
	for p := byID[id]; p != nil && len(parts) <= len(c.PlanItems); p = byID[p.StageID] {
		typ, name := p.Type, p.Name
		if typ == "CasePlan" {
			typ = "Case"
		}
		if p.Index > 0 {
			name += "." + strconv.Itoa(p.Index)
		}
		parts = append(parts, typ+"["+name+"]")
		if p.StageID == "" {
			break
		}
	}
	slices.Reverse(parts)
	return strings.Join(parts, "/")
}
