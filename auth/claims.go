package auth

import (
	"math"
	"slices"
	"time"
)

// checkClaims checks the time claims and the audience of a token whose
// signature verified. `exp` (required), `nbf` and `iat` must be JSON
// numbers of seconds: a date given as a string is refused, not guessed at.
// `exp` and `nbf` are checked with the configured leeway for clock skew;
// `iat` is not, as the reference engine does not: an identity provider
// whose clock runs ahead would lock everyone out for no gain, since `exp`
// bounds a token's life.
func (v *Verifier) checkClaims(claims map[string]any) error {
	now := v.now()
	times := map[string]time.Time{}
	for _, name := range []string{"exp", "nbf", "iat"} {
		raw, ok := claims[name]
		if !ok {
			continue
		}
		secs, ok := raw.(float64)
		if !ok || math.IsNaN(secs) || math.IsInf(secs, 0) || secs < 0 || secs > 1<<40 {
			return tokenErrorf("Token cannot be verified: the '%s' claim must be a number of seconds since 1970", name)
		}
		sec, frac := math.Modf(secs)
		times[name] = time.Unix(int64(sec), int64(frac*1e9))
	}
	if exp, ok := times["exp"]; ok && !now.Before(exp.Add(v.leeway)) {
		return errExpired
	}
	if nbf, ok := times["nbf"]; ok && now.Add(v.leeway).Before(nbf) {
		return tokenErrorf("Token cannot be verified: the token is not valid yet ('nbf' claim)")
	}
	if v.aud != "" && !audienceHas(claims["aud"], v.aud) {
		return tokenErrorf("Token cannot be verified: the token is not meant for this server ('aud' claim must name %s)", v.aud)
	}
	return nil
}

// audienceHas reports whether the `aud` claim, a string or an array of
// strings, names want.
func audienceHas(aud any, want string) bool {
	switch a := aud.(type) {
	case string:
		return a == want
	case []any:
		return slices.ContainsFunc(a, func(x any) bool { s, ok := x.(string); return ok && s == want })
	}
	return false
}

// expiryOf is the token's exp claim as a time; checkClaims has refused a
// token whose exp is missing or not a number, so zero means none.
func expiryOf(claims map[string]any) time.Time {
	secs, _ := claims["exp"].(float64)
	sec, frac := math.Modf(secs)
	return time.Unix(int64(sec), int64(frac*1e9))
}
