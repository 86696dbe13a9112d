package service

import (
	"context"
	"slices"
	"strings"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
)

// DebugEvent is a stored event with the metadata the reference engine's
// debug view shows around it (its modelEvent header).
type DebugEvent struct {
	CaseEvent
	// Actor is the case's place in its case tree: "Case[<root>]/Case[<id>]".
	Actor string
	// User is the event's user as the case's tenant knew it when read.
	User EventUser
}

// EventUser is the user of an event: id, origin (Tenant, Platform, IDP, or
// the engine's own TimerService), tenant roles and consent groups.
type EventUser struct {
	UserID      string
	Origin      string
	TenantRoles []string
	Groups      []string
}

// DebugEvents returns the events of a case numbered from `from` up to
// `to` (exclusive; 0 for all), for the reference engine's debug route.
// The reference opens it to every user of the case's tenant and to
// platform owners; here, as everywhere, only the case's team sees the
// case, which filters it to the caller's tenants and more: anyone else
// gets NotFound.
func (s *Service) DebugEvents(ctx context.Context, who auth.Identity, modelID string, from, to int64) ([]DebugEvent, error) {
	const op = "service.DebugEvents"
	events, err := s.CaseEvents(ctx, who, modelID)
	if err != nil {
		return nil, err
	}
	var page []CaseEvent
	for _, e := range events {
		if e.Seq-1 >= from && (to <= 0 || e.Seq-1 < to) {
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
		out[i] = DebugEvent{CaseEvent: e, Actor: actor, User: u}
	}
	return out, nil
}
