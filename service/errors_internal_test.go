package service

import (
	"errors"
	"testing"

	"github.com/casegraph/casegraph/engine"
)

// TestEngineErrorsTranslateOnce: every kind of engine error has its
// service kind in the one table, a state error is InvalidState, and the
// engine's message reaches the caller.
func TestEngineErrorsTranslateOnce(t *testing.T) {
	for _, tt := range []struct {
		err  *engine.Error
		want Kind
	}{
		{&engine.Error{Kind: engine.ErrInvalid, Msg: "bad"}, Invalid},
		{&engine.Error{Kind: engine.ErrInvalid, Msg: "bad", WrongState: true}, InvalidState},
		{&engine.Error{Kind: engine.ErrNotAllowed, Msg: "bad"}, NotAllowed},
		{&engine.Error{Kind: engine.ErrNotFound, Msg: "bad"}, NotFound},
		{&engine.Error{Kind: engine.ErrNoEffect, Msg: "bad"}, NotModified},
	} {
		err := engineError("op", tt.err)
		if KindOf(err) != tt.want || Message(err) != "bad" {
			t.Errorf("engine kind %d (wrong state %v) = %v %q, want %v", tt.err.Kind, tt.err.WrongState, KindOf(err), Message(err), tt.want)
		}
	}
	for k := engine.ErrInvalid; k <= engine.ErrNoEffect; k++ {
		if _, ok := engineKinds[k]; !ok {
			t.Errorf("engine kind %d has no service kind", k)
		}
	}
	if KindOf(engineError("op", errors.New("boom"))) != Internal || KindOf(engineError("op", &engine.Error{Kind: 99})) != Internal {
		t.Error("an error that is no known engine kind must be Internal")
	}
}
