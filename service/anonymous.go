package service

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/casegraph/casegraph/auth"
)

// OriginAnonymous is the origin of the configured anonymous user, who
// starts the cases of anonymous requests.
const OriginAnonymous = "Anonymous"

// AnonymousConfig configures the reference engine's anonymous case start
// (POST /request/case/{type}): who starts the cases, and which definition,
// tenant and team each request type uses.
type AnonymousConfig struct {
	User        AnonymousUser
	Definitions []AnonymousDefinition
}

// AnonymousUser is the pseudo user the cases of anonymous requests are
// started by. Roles are its tenant roles in the definitions' tenants.
type AnonymousUser struct {
	ID, Name, Email string
	Roles           []string
}

// AnonymousDefinition is one request type: URL is the {type} of the path
// ("" for POST /request/case itself), Definition the deployed definition,
// Tenant its tenant (the default tenant when empty), Team the new case's
// team, which must have an owner.
type AnonymousDefinition struct {
	URL        string
	Definition string
	Tenant     string
	Team       []MemberInput
}

// Check reports a configuration that cannot serve requests: no user id, a
// type configured twice, a definition without a name, or a team without an
// owner or with a member twice. What only the database can tell (tenant,
// definition, roles) is found per request.
func (c *AnonymousConfig) Check() error {
	if strings.TrimSpace(c.User.ID) == "" {
		return errors.New("the anonymous user has no id")
	}
	if len(c.Definitions) == 0 {
		return errors.New("it configures no definitions")
	}
	urls := map[string]bool{}
	for _, d := range c.Definitions {
		if urls[d.URL] {
			return fmt.Errorf("url %q is configured twice", d.URL)
		}
		urls[d.URL] = true
		if strings.ContainsAny(d.URL, "/?#%") {
			return fmt.Errorf("url %q is not one path segment", d.URL)
		}
		if strings.TrimSpace(d.Definition) == "" {
			return fmt.Errorf("url %q has no definition", d.URL)
		}
		owner := false
		seen := map[string]bool{}
		for _, m := range d.Team {
			if strings.TrimSpace(m.ID) == "" {
				return fmt.Errorf("the case team of url %q has a user without a userId", d.URL)
			}
			if seen[m.ID] {
				return fmt.Errorf("the case team of url %q has user %q twice", d.URL, m.ID)
			}
			seen[m.ID] = true
			if m.Origin != "" && !slices.Contains([]string{OriginTenant, OriginPlatform, OriginIDP, OriginAnonymous}, m.Origin) {
				return fmt.Errorf("user %q of url %q has origin %q; use Tenant, Platform, IDP or Anonymous", m.ID, d.URL, m.Origin)
			}
			owner = owner || m.IsOwner
		}
		if !owner {
			return fmt.Errorf("the case team of url %q has no owner", d.URL)
		}
	}
	return nil
}

// anonymousStart is what startCase needs to know of an anonymous start.
type anonymousStart struct {
	tenantRoles []string
}

// msgAnonymousConfig is the reference engine's answer to an anonymous
// request that its configuration cannot serve; the cause is only logged.
const msgAnonymousConfig = "Your request bumped into an internal configuration issue and cannot be handled"

// AnonymousStartInput is an anonymous request to start a case.
type AnonymousStartInput struct {
	Inputs map[string]any
	// CaseInstanceID is the new case's id; generated when empty.
	CaseInstanceID string
	Debug          bool
	// CorrelationID is the request's CorrelationId header, stored with
	// the events; empty for the command's own id.
	CorrelationID string
}

// AnonymousEnabled reports whether anonymous case start is configured.
func (s *Service) AnonymousEnabled() bool { return s.anonymous != nil }

// StartAnonymousCase starts a case of the request type typ, without a
// caller: the configured anonymous user starts it, with the configured
// team, as the reference engine's /request/case/{type} does. An unknown
// type is NotFound; a bad case id, or one taken, is Invalid; whatever the
// configuration chose and the database refuses (tenant, definition, team)
// is Internal, its cause for the logs only. Anonymous start not configured
// is NotFound too.
func (s *Service) StartAnonymousCase(ctx context.Context, typ string, in AnonymousStartInput) (CaseStarted, error) {
	const op = "service.StartAnonymousCase"
	var def *AnonymousDefinition
	if s.anonymous != nil {
		for i := range s.anonymous.Definitions {
			if s.anonymous.Definitions[i].URL == typ {
				def = &s.anonymous.Definitions[i]
			}
		}
	}
	if def == nil {
		return CaseStarted{}, Ef(op, NotFound, "Request of type '%s' is not found", typ)
	}
	who := auth.Identity{UserID: s.anonymous.User.ID, CorrelationID: in.CorrelationID}
	start := StartCaseInput{Definition: def.Definition, Inputs: in.Inputs, Tenant: def.Tenant, CaseInstanceID: in.CaseInstanceID,
		Debug: in.Debug, Team: slices.Clone(def.Team)}
	return s.startCase(ctx, op, who, start, &anonymousStart{tenantRoles: s.anonymous.User.Roles})
}
