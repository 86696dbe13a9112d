package service

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
)

// ForceRecoveryEnabled reports whether RecoverCase is configured.
func (s *Service) ForceRecoveryEnabled() bool { return s.forceRecovery }

// RecoverCase rebuilds the read tables of a case (plan items, tasks, team,
// case file, business identifiers, timers) from the case's recorded
// state, the reference engine's PATCH /debug/force-recovery. The state is
// what the case's events produced, stored in the same transaction as
// them; RecoverCase first checks that it has seen every event, and
// refuses (Internal) when not. It appends no event and changes neither
// the state nor the version. Who may: the case's team, as for the debug
// events; anyone else, and anyone at all when force recovery is not
// configured, gets NotFound.
func (s *Service) RecoverCase(ctx context.Context, who auth.Identity, id string) error {
	const op = "service.RecoverCase"
	if !s.forceRecovery {
		return CaseNotFound(op, id)
	}
	return s.command(ctx, op, func(ctx context.Context, tx bun.Tx) error {
		ca, err := s.memberCase(ctx, tx, op, who, id)
		if err != nil {
			return err
		}
		events, err := db.CaseEvents(ctx, tx, id)
		if err != nil {
			return err
		}
		if n := int64(len(events)); n == 0 || events[n-1].Seq != ca.c.Sequence {
			return &Error{Op: op, Kind: Internal, Err: fmt.Errorf("case %s: its state has seen event %d, its last event is %d of %d",
				id, ca.c.Sequence, lastSeq(events), n)}
		}
		def, err := s.caseDefinition(ctx, tx, ca.rec, ca.c)
		if err != nil {
			return err
		}
		return db.RebuildCaseReadRows(ctx, tx, ca.rec, db.ReadState{State: ca.c, Identifiers: identifiersOf(def, ca.c), Timers: ca.c.Timers()})
	})
}

func lastSeq(events []db.CaseEvent) int64 {
	if len(events) == 0 {
		return 0
	}
	return events[len(events)-1].Seq
}
