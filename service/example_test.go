package service_test

import (
	"errors"
	"fmt"

	"github.com/casegraph/casegraph/service"
)

// Errors carry the operation, a kind for the front doors and the message
// the caller sees; internal causes never reach the caller.
func ExampleError() {
	err := service.E("service.ClaimTask", service.NotFound, "A task with id 't1' cannot be found.")
	fmt.Println(err)
	fmt.Println(service.KindOf(err), "|", service.Message(err))

	internal := &service.Error{Op: "service.StartCase", Kind: service.Internal, Err: errors.New("disk on fire")}
	fmt.Println(service.Message(internal))
	// Output:
	// service.ClaimTask: not found: A task with id 't1' cannot be found.
	// not found | A task with id 't1' cannot be found.
	// An error happened in the server; check the server logs for more information
}
