package service

// DefaultPageSize is the number of results a list returns when the caller
// names none (NumberOfResults 0 or less), as the reference engine's REST
// lists do. GraphQL always names one (its connections take first), so
// this default is REST's in effect; it lives here once for every list.
const DefaultPageSize = 100

// pageSize is n, or DefaultPageSize when n names no size.
func pageSize(n int) int {
	if n <= 0 {
		return DefaultPageSize
	}
	return n
}
