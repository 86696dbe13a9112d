package service

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/engine"
)

// VersionInfo describes the running build.
type VersionInfo struct {
	Name        string
	Version     string
	GitCommit   string
	GitBranch   string
	Uncommitted bool
	BuiltAt     time.Time
}

// Version returns the running build's version. Needs no identity.
func (s *Service) Version() VersionInfo { return s.version }

// VersionDocument is the running build as the reference engine's
// /version answers it (sbt BuildInfo). Its field order is part of the
// contract: clients compare it, as JSON text, with the engineVersion of
// CaseDefinitionApplied, which holds the same document.
type VersionDocument struct {
	Name                  string `json:"name"`
	Organization          string `json:"organization"`
	Version               string `json:"version"`
	Description           string `json:"description"`
	GitHeadCommit         string `json:"gitHeadCommit"`
	GitCurrentBranch      string `json:"gitCurrentBranch"`
	GitUncommittedChanges bool   `json:"gitUncommittedChanges"`
	BuiltAtString         string `json:"builtAtString"`
	BuiltAtMillis         int64  `json:"builtAtMillis"`
}

// VersionDocument returns the running build's version document. Needs
// no identity.
func (s *Service) VersionDocument() VersionDocument {
	v := s.version
	d := VersionDocument{Name: v.Name, Organization: "casegraph", Version: v.Version,
		Description: "CaseGraph, a CMMN case-management engine", GitHeadCommit: v.GitCommit, GitCurrentBranch: v.GitBranch,
		GitUncommittedChanges: v.Uncommitted}
	if !v.BuiltAt.IsZero() {
		d.BuiltAtString = v.BuiltAt.UTC().Format("2006-01-02 15:04:05.000Z")
		d.BuiltAtMillis = v.BuiltAt.UnixMilli()
	}
	return d
}

// definitionApplied is CaseDefinitionApplied as stored: with the engine
// version that ran the case, which the pure engine cannot know.
type definitionApplied struct {
	engine.CaseDefinitionApplied
	EngineVersion VersionDocument `json:"engineVersion"`
}

// withEngineVersion stamps the running build into the command's
// CaseDefinitionApplied events (a new case, a new sub case).
func (s *Service) withEngineVersion(events []engine.Event) []engine.Event {
	for i, e := range events {
		var p engine.CaseDefinitionApplied
		switch v := e.Payload.(type) {
		case engine.CaseDefinitionApplied:
			p = v
		case *engine.CaseDefinitionApplied:
			p = *v
		default:
			continue
		}
		events[i].Payload = definitionApplied{CaseDefinitionApplied: p, EngineVersion: s.VersionDocument()}
	}
	return events
}

// MeasurePoint is one indicator of the health report.
type MeasurePoint struct {
	Name        string
	OK          bool
	Description string
}

// Health is the engine's health report.
type Health struct {
	// OK: every point is up (the report's Status).
	OK bool
	// Description sums the points up in the reference engine's words.
	Description string
	Points      []MeasurePoint
}

// HealthFor is the health report as the caller may see it: every check
// with its details for a platform owner; for anyone else (who nil: no
// token) only up or down per check, since the details (driver, host,
// errors) help an attacker more than a stranger. Failing checks are logged
// with their details either way.
func (s *Service) HealthFor(ctx context.Context, who *auth.Identity) Health {
	h := s.Health(ctx)
	for _, p := range h.Points {
		if !p.OK {
			s.logger.WarnContext(ctx, "health check failing", "check", p.Name, "detail", p.Description)
		}
	}
	if who != nil && s.isPlatformOwner(who.UserID) {
		return h
	}
	for i, p := range h.Points {
		h.Points[i].Description = "down"
		if p.OK {
			h.Points[i].Description = "up"
		}
	}
	return h
}

// Health checks the database, the identity providers, the timer runner
// and the archive directory, with details. Needs no identity: doors
// answer callers through HealthFor. The journals of the reference engine's
// report live in the same database as the read tables here, so they share
// its result.
func (s *Service) Health(ctx context.Context) Health {
	h := Health{Points: append(s.readinessPoints(ctx), s.timerPoint(), s.storagePoint())}
	h.OK = allOK(h.Points)
	h.Description = "All measure points are healthy"
	if !h.OK {
		h.Description = "One or more measure points are unhealthy"
	}
	return h
}

// Ready reports whether what requests need answers: the database and the
// identity providers (/status). A stuck timer runner or an unwritable
// archive directory turns the health report red but does not make the
// server refuse requests it can answer, and a probe does no file I/O.
func (s *Service) Ready(ctx context.Context) bool {
	return allOK(s.readinessPoints(ctx))
}

func (s *Service) readinessPoints(ctx context.Context) []MeasurePoint {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	dbPoint := func(name string, err error) MeasurePoint {
		if err != nil {
			return MeasurePoint{Name: name, OK: false, Description: "database unreachable: " + err.Error()}
		}
		return MeasurePoint{Name: name, OK: true, Description: string(s.db.Flavor) + " database reachable"}
	}
	pingErr := s.db.Ping(ctx)
	// The reference engine's order: query-db, idp, the journals.
	points := []MeasurePoint{dbPoint("query-db", pingErr)}
	if s.identityHealth != nil {
		ok, desc := s.identityHealth(ctx)
		points = append(points, MeasurePoint{Name: "idp", OK: ok, Description: desc})
	}
	return append(points, dbPoint("write-journal", pingErr), dbPoint("read-journal", pingErr))
}

func allOK(points []MeasurePoint) bool {
	for _, p := range points {
		if !p.OK {
			return false
		}
	}
	return true
}

// timerPoint reports whether this process's timer runner completes its
// passes: one that has not for ten of its sleeps (at least 30 s) is
// stuck or cannot reach the database, and due timers wait.
func (s *Service) timerPoint() MeasurePoint {
	beat := s.timerBeat.Load()
	if beat == 0 {
		return MeasurePoint{Name: "timer-service", OK: true, Description: "this process runs no timers (serve does)"}
	}
	age := s.now().Sub(time.Unix(0, beat))
	limit := max(10*time.Duration(s.timerPoll.Load()), 30*time.Second)
	if age > limit {
		return MeasurePoint{Name: "timer-service", OK: false,
			Description: fmt.Sprintf("the timer runner has not completed a pass for %s", age.Round(time.Second))}
	}
	return MeasurePoint{Name: "timer-service", OK: true, Description: "the timer runner completes its passes"}
}

// storagePoint reports whether archived cases can be written: the archive
// directory exists (or can be made) and takes a file.
func (s *Service) storagePoint() MeasurePoint {
	if s.archiveDir == "" {
		return MeasurePoint{Name: "storage-service", OK: true, Description: "archiving is not configured"}
	}
	if err := os.MkdirAll(s.archiveDir, 0o750); err != nil {
		return MeasurePoint{Name: "storage-service", OK: false, Description: "archive directory unusable: " + err.Error()}
	}
	f, err := os.CreateTemp(s.archiveDir, ".health-*")
	if err != nil {
		return MeasurePoint{Name: "storage-service", OK: false, Description: "archive directory not writable: " + err.Error()}
	}
	f.Close()
	os.Remove(f.Name())
	return MeasurePoint{Name: "storage-service", OK: true, Description: "archive directory writable"}
}

// Readiness says why this process should not take traffic now, or nil:
// the database does not answer, or lacks migrations this build needs
// (another replica may still be migrating). Unlike Ready it leaves the
// identity providers out: a load balancer moving traffic away would not
// bring them back.
func (s *Service) Readiness(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := s.db.PingContext(ctx); err != nil {
		return fmt.Errorf("database unreachable: %w", err)
	}
	pending, err := s.db.PendingMigrations(ctx)
	if err != nil {
		return err
	}
	if len(pending) > 0 {
		return fmt.Errorf("database lacks %d migrations: %s", len(pending), strings.Join(pending, ", "))
	}
	return nil
}
