package service

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/engine"
	"github.com/casegraph/casegraph/engine/cmmn"
)

// MigrateDefinitionInput is a request to move a running case onto another
// definition.
type MigrateDefinitionInput struct {
	// Definition is the new CMMN definitions document, or the name of a
	// definition deployed to the case's tenant (with or without .xml), as
	// the reference engine accepts either. A value starting with '<' is a
	// document.
	Definition string
	// Team, when not nil, replaces the case team, validated against the
	// new definition as a team replace is. nil keeps the team.
	Team []MemberInput
}

// MigrateCaseDefinition moves a case onto a new definition (engine.Migrate
// says how its plan items, team and case file follow). Any member of the
// case's team may migrate it, as in the reference engine; replacing the
// team on the way is for case owners only, as any team replace is. A sub
// case cannot be migrated on its own: it moves with its root
// (migrateSubCases). After it, the case runs on the new
// definition: the case row refers to the new document by its hash.
func (s *Service) MigrateCaseDefinition(ctx context.Context, who auth.Identity, caseID string, in MigrateDefinitionInput) (LastModified, error) {
	const op = "service.MigrateCaseDefinition"
	who = s.commandIdentity(who)
	src := strings.TrimSpace(in.Definition)
	inline := strings.HasPrefix(src, "<")
	// A document is parsed before the transaction, but its problems are
	// told only to a member: a stranger learns nothing of the case.
	var (
		parsed   *cmmn.Definitions
		hash     string
		parseErr error
	)
	if inline {
		parsed, hash, parseErr = s.parseMigrationDocument(op, caseID, []byte(src))
	}
	var lm LastModified
	err := s.command(ctx, op, func(ctx context.Context, tx bun.Tx) error {
		ca, err := s.memberCase(ctx, tx, op, who, caseID)
		if err != nil {
			return err
		}
		if in.Team != nil && !ca.actor.IsOwner {
			return E(op, NotAllowed, msgOnlyOwners)
		}
		if parseErr != nil {
			return parseErr
		}
		previous, err := s.caseDefinition(ctx, tx, ca.rec, ca.c)
		if err != nil {
			return err
		}
		rec := ca.rec
		now := s.now()
		switch {
		case inline:
			if err := db.SaveDocument(ctx, tx, hash, src, now); err != nil {
				return err
			}
			// The row keeps the file name it had: a document sent
			// inline has none.
			rec.DefinitionHash = hash
		case src == "":
			return E(op, Invalid, "The new definition is missing: give its CMMN document, or the name of a definition deployed to the tenant")
		default:
			stored, err := db.GetDefinition(ctx, tx, rec.Tenant, definitionFileName(src))
			if errors.Is(err, db.ErrNotFound) {
				return Ef(op, Invalid, "Cannot find or load definition %s", definitionFileName(src))
			}
			if err != nil {
				return err
			}
			if parsed, err = s.storedDefinitions(ctx, tx, stored.Hash); err != nil {
				return err
			}
			rec.DefinitionName, rec.DefinitionHash = stored.Name, stored.Hash
		}
		def := parsed.Main()
		cmd := engine.MigrateDefinition{Previous: previous}
		if in.Team != nil {
			team, err := s.replacementTeam(ctx, tx, op, def, rec.Tenant, who, in.Team)
			if err != nil {
				return err
			}
			cmd.Team = &team
		}
		out, err := engine.Migrate(def, ca.c, cmd, ca.actor, engine.Env{Now: now, NewID: newPlanItemID})
		if err != nil {
			return engineError(op, err)
		}
		rec.Name = def.Name()
		// Without a "before", every read row of the case is written anew:
		// the case name on its tasks, its plan items and timers all follow
		// the new definition.
		if _, err := s.saveCase(ctx, tx, def, rec, ca.c, out.Events, who, nil); err != nil {
			return err
		}
		if err := s.settle(ctx, tx, op, who, out.Effects); err != nil {
			return err
		}
		if err := s.migrateSubCases(ctx, tx, op, who, rec, parsed); err != nil {
			return err
		}
		lm = LastModified{At: ca.c.LastModified, ID: caseID}
		return nil
	})
	return lm, err
}

// parseMigrationDocument parses and validates a definitions document sent
// for a migration and caches it by its hash.
func (s *Service) parseMigrationDocument(op, caseID string, xml []byte) (*cmmn.Definitions, string, error) {
	invalid := func(problems []string) error {
		return &InvalidDefinitionError{Err: Ef(op, Invalid, "Cannot migrate case %s: the new definition is invalid.", caseID), Problems: problems}
	}
	if len(xml) > MaxDefinitionSize {
		return nil, "", invalid([]string{"The definition is larger than 10 MiB"})
	}
	parsed, err := s.definitions.parse(xml)
	if err != nil {
		return nil, "", invalid(problemsOf(err))
	}
	return parsed, hashOf(xml), nil
}

// replacementTeam validates a team that replaces a case's whole team
// (SetCaseTeam, a migration's new team): it must not be empty and must
// have an owner, as a user, a tenant role or a group mapping.
func (s *Service) replacementTeam(ctx context.Context, idb bun.IDB, op string, def *cmmn.Case, tenant string, who auth.Identity,
	members []MemberInput) (Team, error) {
	if len(members) == 0 {
		return Team{}, E(op, Invalid, msgTeamEmpty)
	}
	if !slices.ContainsFunc(members, MemberInput.owner) {
		return Team{}, E(op, Invalid, msgTeamNoOwner)
	}
	return s.newTeam(ctx, idb, op, def, tenant, who, false, members)
}

// migrateSubCases moves the sub cases of root, just migrated onto defs,
// with it: the whole tree runs on one document, as a tree started on it
// would. Each sub case runs the <case> of defs with its definition id,
// else the one with its name; one that defs no longer has keeps the
// document it started on, since nothing in defs could run it. Sub cases
// the root's migration started already run on defs and are left alone.
func (s *Service) migrateSubCases(ctx context.Context, tx bun.Tx, op string, who auth.Identity, root db.CaseRecord, defs *cmmn.Definitions) error {
	ids, err := db.CaseTreeIDs(ctx, tx, root.ID)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if id == root.ID {
			continue
		}
		rec, c, err := db.LoadCaseForUpdate(ctx, tx, s.db.Flavor, id)
		if err != nil {
			return err
		}
		if rec.DefinitionHash == root.DefinitionHash {
			continue
		}
		previous, err := s.caseDefinition(ctx, tx, rec, c)
		if err != nil {
			return err
		}
		def := defs.Case(c.DefinitionID)
		if def == nil {
			def = caseNamed(defs, previous.Name())
		}
		if def == nil {
			continue
		}
		out, err := engine.Migrate(def, c, engine.MigrateDefinition{Previous: previous, WithRoot: true}, effectActor(who),
			engine.Env{Now: s.now(), NewID: newPlanItemID})
		if err != nil {
			return engineError(op, err)
		}
		rec.Name, rec.DefinitionName, rec.DefinitionHash = def.Name(), root.DefinitionName, root.DefinitionHash
		if _, err := s.saveCase(ctx, tx, def, rec, c, out.Events, who, nil); err != nil {
			return err
		}
		if err := s.settle(ctx, tx, op, who, out.Effects); err != nil {
			return err
		}
	}
	return nil
}

// caseNamed is the <case> of defs named name, nil when there is none.
func caseNamed(defs *cmmn.Definitions, name string) *cmmn.Case {
	for _, c := range defs.Cases() {
		if c.Name() == name {
			return c
		}
	}
	return nil
}
