package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/casegraph/casegraph/engine/cmmn"
)

// validate parses and validates each file (directories: every .xml below
// them), prints each file's verdict and problems, and fails when any file is
// invalid.
func validate(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: casegraph validate FILE|DIR…")
	}
	var files []string
	for _, arg := range args {
		st, err := os.Stat(arg)
		if err != nil {
			return err
		}
		if !st.IsDir() {
			files = append(files, arg)
			continue
		}
		err = filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".xml") {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	invalid := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err == nil {
			_, err = cmmn.Parse(data)
		}
		if err == nil {
			fmt.Fprintf(stdout, "ok       %s\n", f)
			continue
		}
		invalid++
		fmt.Fprintf(stdout, "INVALID  %s\n", f)
		var ve *cmmn.ValidationError
		if errors.As(err, &ve) {
			for _, p := range ve.Problems {
				fmt.Fprintf(stdout, "         - %s\n", p)
			}
		} else {
			fmt.Fprintf(stdout, "         - %v\n", err)
		}
	}
	if invalid > 0 {
		return fmt.Errorf("%d of %d definitions are invalid", invalid, len(files))
	}
	return nil
}
