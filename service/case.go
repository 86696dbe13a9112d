package service

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/engine"
	"github.com/casegraph/casegraph/engine/cmmn"
)

// Case is the state of a case instance; PlanItem one of its plan items.
type (
	Case       = engine.Case
	PlanItem   = engine.PlanItem
	CaseRecord = db.CaseRecord
)

// StartCaseInput is a request to start a case.
type StartCaseInput struct {
	// Definition is the name of a definition deployed to the tenant, with
	// or without .xml.
	Definition string
	Inputs     map[string]any
	// Team is the initial team; empty makes the caller its only member
	// and owner.
	Team []MemberInput
	// Tenant defaults to the configured default tenant.
	Tenant string
	// CaseInstanceID is the new case's id; generated when empty.
	CaseInstanceID string
	Debug          bool
}

// CaseStarted is a started case.
type CaseStarted struct {
	ID           string
	Name         string
	LastModified LastModified
	// Record is the new case's row, for a starter who is not in its team
	// and so cannot read it back.
	Record CaseRecord
}

// StartCase starts a case of a deployed definition. Any authenticated
// caller may start a case in an existing, enabled tenant; the team decides
// who may see it afterwards.
func (s *Service) StartCase(ctx context.Context, who auth.Identity, in StartCaseInput) (CaseStarted, error) {
	return s.startCase(ctx, "service.StartCase", s.commandIdentity(who), in, nil)
}

// startCase starts a case as who. anon, when not nil, is the configured
// anonymous start: who is the anonymous user, with anon's tenant roles,
// and what the configuration chose (tenant, definition, team) fails as
// Internal, not as the caller's mistake.
func (s *Service) startCase(ctx context.Context, op string, who auth.Identity, in StartCaseInput, anon *anonymousStart) (CaseStarted, error) {
	// configured classifies a failure of what the configuration chose.
	configured := func(err error) error {
		if anon == nil || err == nil {
			return err
		}
		return &Error{Op: op, Kind: Internal, Msg: msgAnonymousConfig, Err: err}
	}
	if who.UserID == "" {
		// A token may carry an empty subject; the reference engine lets it
		// in and refuses its commands.
		return CaseStarted{}, E(op, Invalid, "User information is missing in command of type StartCase")
	}
	tenant := strings.TrimSpace(in.Tenant)
	if tenant == "" {
		tenant = s.defaultTenant
	}
	id := strings.TrimSpace(in.CaseInstanceID)
	if id == "" {
		id = newCaseID()
	} else if err := validActorID(id); err != nil {
		return CaseStarted{}, Ef(op, Invalid, "Invalid actor path '%s': %v", id, err)
	}
	var out CaseStarted
	err := s.oneBatchCommand(ctx, op, func(ctx context.Context, tx bun.IDB) error {
		check, err := db.StartChecks(ctx, tx, id, tenant, definitionFileName(in.Definition), who.UserID)
		if err != nil {
			return err
		}
		if enabled, ok := check.Tenants[tenant]; !ok || !enabled || (s.onlyTenantUsersStart && anon == nil && check.Account == nil) {
			return configured(ActiveTenantNotFound(op, tenant))
		}
		acct, err := enabledAccount(op, who, check.Account)
		if err != nil {
			return configured(err)
		}
		if check.DefinitionHash == "" {
			return configured(Ef(op, Invalid, "Cannot find or load definition %s", definitionFileName(strings.TrimSpace(in.Definition))))
		}
		// The reference engine keeps one id space for cases, tenants and
		// consent groups: StartCase to a tenant's or a group's id reaches
		// that actor and fails. Nor does it reuse the id of an archived or
		// deleted case. Checked after the tenant, the caller and the
		// definition, as a live case's id is (when its row is written), so
		// that no one learns of a hidden id before passing them.
		if _, ok := check.Tenants[id]; ok || check.Retired {
			return E(op, Invalid, msgStartCaseFailure)
		}
		stored := db.Definition{Name: check.DefinitionName, Hash: check.DefinitionHash}
		defs, err := s.storedDefinitions(ctx, tx, stored.Hash)
		if err != nil {
			return configured(err)
		}
		def := defs.Main()
		team, err := s.newTeam(ctx, tx, op, def, tenant, who, acct.UserID == who.UserID, in.Team)
		if err != nil {
			return configured(err)
		}
		roles := acct.Roles
		if anon != nil {
			roles = anon.tenantRoles
		}
		groups, err := callerGroups(ctx, tx, who, tenant, team)
		if err != nil {
			return err
		}
		actor, _ := actorOf(who, team, roles, groups[tenant])
		now := s.now()
		c, started, err := engine.StartWithEffects(def, engine.StartCase{ID: id, Tenant: tenant, Inputs: in.Inputs, Team: team, Debug: in.Debug},
			actor, engine.Env{Now: now, NewID: newPlanItemID})
		if err != nil {
			return engineError(op, err)
		}
		if len(started.Effects) > 0 && !inTx(tx) {
			// Sub cases or process tasks to start: more than one batch.
			return errNeedsTx
		}
		events := started.Events
		rec := db.CaseRecord{ID: id, Tenant: tenant, Name: def.Name(), DefinitionName: stored.Name, DefinitionHash: stored.Hash,
			RootCaseID: id, CreatedOn: now, CreatedBy: who.UserID}
		if _, err := s.saveCase(ctx, tx, def, rec, c, events, who, nil); err != nil {
			if errors.Is(err, db.ErrExists) {
				return E(op, Invalid, msgStartCaseFailure)
			}
			return err
		}
		if len(started.Effects) > 0 {
			// A transaction's: without one, errNeedsTx came back before the write.
			if err := s.settle(ctx, tx.(bun.Tx), op, who, started.Effects); err != nil {
				return err
			}
			// Its sub cases may have reported back already.
			if _, c, err = db.LoadCase(ctx, tx, id); err != nil {
				return err
			}
		}
		rec.State, rec.Failures, rec.LastModified, rec.ModifiedBy = string(c.State()), c.Failures, c.LastModified, c.ModifiedBy
		out = CaseStarted{ID: id, Name: def.Name(), LastModified: LastModified{At: c.LastModified, ID: id}, Record: rec}
		return nil
	})
	return out, err
}

// msgStartCaseFailure is the reference engine's answer to a StartCase on
// an id that is taken, by a case or a tenant.
const msgStartCaseFailure = "Failure while handling message StartCase. Check the server logs for more details"

// saveCase stores a case after a command, with its read tables. before,
// when not nil, is the case as the command found it: then only the read
// rows that changed are written.
func (s *Service) saveCase(ctx context.Context, idb bun.IDB, def *cmmn.Case, rec db.CaseRecord, c *engine.Case, events []engine.Event,
	who auth.Identity, before *engine.Case) (int64, error) {
	rec.State = string(c.State())
	rec.Failures = c.Failures
	rec.LastModified, rec.ModifiedBy = c.LastModified, c.ModifiedBy
	if rec.ParentCaseID == "" {
		rec.ParentCaseID = c.ParentID
	}
	if c.RootID != "" {
		rec.RootCaseID = c.RootID
	}
	// Members the engine added (an owner assigning a task to a newcomer)
	// get their origin here, where users can be looked up.
	if err := s.setOrigins(ctx, idb, rec.Tenant, c.Team.Members); err != nil {
		return 0, err
	}
	corr, err := correlationID(ctx, who)
	if err != nil {
		return 0, err
	}
	ids := identifiersOf(def, c)
	for _, bi := range ids {
		if len(bi.Value) > maxIdentifierValue {
			return 0, Ef("service.saveCase", Invalid, "The business identifier %s would be %d bytes long; the limit is %d", bi.Name, len(bi.Value), maxIdentifierValue)
		}
	}
	w := db.CaseWrite{Record: rec, State: c, Events: s.withEngineVersion(events), User: who.UserID, At: c.LastModified, Identifiers: ids,
		Timers: c.Timers(), MaxFileSize: s.limits.CaseFileBytes, CorrelationID: corr}
	if before != nil {
		w.Before = &db.ReadState{State: before, Identifiers: identifiersOf(def, before), Timers: before.Timers()}
	}
	if newTimers(w) {
		noteTimersSet(ctx)
	}
	v, err := db.SaveCase(ctx, idb, w)
	if err == nil {
		noteChanged(ctx, Change{CaseID: rec.ID})
	}
	return v, fileTooLarge("service.saveCase", err)
}

// maxIdentifierValue bounds a business identifier's value: PostgreSQL
// indexes it, and refused (500) an index row past 2,704 bytes.
const maxIdentifierValue = 1024

func identifiersOf(def *cmmn.Case, c *engine.Case) []db.Identifier {
	var ids []db.Identifier
	for _, bi := range engine.BusinessIdentifiers(def, c) {
		ids = append(ids, db.Identifier{Name: bi.Name, Value: bi.Value})
	}
	return ids
}

// storedDefinitions returns the parsed definitions document with hash,
// from the cache or the database.
func (s *Service) storedDefinitions(ctx context.Context, idb bun.IDB, hash string) (*cmmn.Definitions, error) {
	if defs, ok := s.definitions.cached(hash); ok {
		return defs, nil
	}
	xml, err := db.Document(ctx, idb, hash)
	if err != nil {
		return nil, err
	}
	return s.definitions.get(hash, []byte(xml))
}

// caseDefinition returns the <case> a case runs.
func (s *Service) caseDefinition(ctx context.Context, idb bun.IDB, rec db.CaseRecord, c *engine.Case) (*cmmn.Case, error) {
	defs, err := s.storedDefinitions(ctx, idb, rec.DefinitionHash)
	if err != nil {
		return nil, err
	}
	if def := defs.Case(c.DefinitionID); def != nil {
		return def, nil
	}
	return defs.Main(), nil
}

// caseAccess is a case loaded for a caller who is in its team.
type caseAccess struct {
	rec   db.CaseRecord
	c     *engine.Case
	actor engine.Actor
}

// memberCase loads a case for a caller in its team; anyone else gets the
// very NotFound an unknown id gets.
func (s *Service) memberCase(ctx context.Context, idb bun.IDB, op string, who auth.Identity, id string) (caseAccess, error) {
	return s.memberCaseOr(ctx, idb, op, who, id, CaseNotFound(op, id))
}

// memberCaseOr is memberCase with the NotFound to answer, for a command
// on something inside a case (a task): a caller outside the team gets that
// thing's NotFound, the one an unknown id of it gets.
func (s *Service) memberCaseOr(ctx context.Context, idb bun.IDB, op string, who auth.Identity, id string, notFound error) (caseAccess, error) {
	var (
		rec  db.CaseRecord
		c    *engine.Case
		acct *TenantUser
		err  error
	)
	// The caller's account comes with the case, locked in a transaction.
	if tx, locked := idb.(bun.Tx); locked {
		rec, c, acct, err = db.LockAndLoadCaseAs(ctx, tx, s.db.Flavor, id, who.UserID)
	} else {
		rec, c, acct, err = db.LoadCaseAs(ctx, idb, id, who.UserID)
	}
	if errors.Is(err, db.ErrNotFound) {
		return caseAccess{}, notFound
	}
	if err != nil {
		return caseAccess{}, wrap(op, err)
	}
	return s.caseAccessOf(ctx, idb, op, who, caseRead{rec: rec, c: c, acct: acct}, notFound)
}

// caseRead is a case as read with the caller's account in its tenant (nil
// when the caller has none there).
type caseRead struct {
	rec  db.CaseRecord
	c    *engine.Case
	acct *TenantUser
}

// caseReadOf is the case a task's lookup read with it, nil if none.
func caseReadOf(tc db.TaskCaseRead) *caseRead {
	if tc.Case == nil {
		return nil
	}
	return &caseRead{rec: tc.Record, c: tc.Case, acct: tc.Account}
}

// caseAccessOf is the case read for the caller when the caller may act in
// it (memberCaseOr); notFound otherwise.
func (s *Service) caseAccessOf(ctx context.Context, idb bun.IDB, op string, who auth.Identity, r caseRead, notFound error) (caseAccess, error) {
	actor, err := s.caseActorOf(ctx, idb, op, who, r.rec.Tenant, r.c.Team, notFound, accountOrNone(r.acct))
	if err != nil {
		return caseAccess{}, err
	}
	return caseAccess{rec: r.rec, c: r.c, actor: actor}, nil
}

// isRoot reports whether the case is the root of its case tree: most are.
func (ca caseAccess) isRoot() bool {
	return ca.rec.RootCaseID == "" || ca.rec.RootCaseID == ca.rec.ID
}

// newCaseID returns a random UUID with '_' for '-', the reference engine's
// case id format.
func newCaseID() string {
	return strings.ReplaceAll(newUUID(), "-", "_")
}

// newPlanItemID returns a fresh plan item id.
func newPlanItemID() string { return newUUID() }

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
