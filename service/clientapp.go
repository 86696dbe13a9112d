package service

import "github.com/casegraph/casegraph/auth"

// isClientApp reports whether who calls with a configured client
// application's token.
func (s *Service) isClientApp(who auth.Identity) bool {
	return who.ClientID != "" && s.clientApps[who.ClientID]
}

// commandIdentity is who a command runs as. A configured client
// application naming a user in On-Behalf-Of runs the command as that
// user, with that user's rights, as the reference engine's system
// accounts do; the request's correlation id goes along. Anyone else runs
// as itself: an On-Behalf-Of header from a user's token, or from an
// unconfigured client, changes nothing. Queries never call this, so a
// client application's own reads see only what its own id is a member of
// (nothing, for a system account).
func (s *Service) commandIdentity(who auth.Identity) auth.Identity {
	if !s.isClientApp(who) || who.OnBehalfOf == "" {
		return who
	}
	return auth.Identity{UserID: who.OnBehalfOf, CorrelationID: who.CorrelationID, ClientID: who.ClientID}
}

// msgClientAppClaim refuses a claim by a client application.
const msgClientAppClaim = "A client application cannot claim a task; the user must claim it"
