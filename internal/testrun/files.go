package testrun

import (
	"context"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/ordered"
	"github.com/mcpv/mcpv/internal/testreport"
)

// Files runs the jobs, up to workers at once, and hands each file's
// report to emit in the order of the jobs, as soon as it and those before
// it are done; it returns them all, and how long the run took. The run
// itself is not cancelled by ctx: each file's steps are, and every file
// still reports what became of it. Nor does a closed stdout end it (see
// testreport.Output): the exit code is the verdict, so every file runs.
func (r *Runner) Files(ctx context.Context, jobs []Job, workers int, emit func(testreport.File) error) ([]testreport.File, time.Duration, error) {
	begin := time.Now()
	var data []testreport.File
	next := 0
	err := ordered.Run(context.WithoutCancel(ctx), ordered.Options[Job, testreport.File]{
		Workers: workers,
		Next: func(context.Context) (Job, bool, error) {
			if next == len(jobs) {
				return Job{}, false, nil
			}
			next++
			return jobs[next-1], true, nil
		},
		Do: func(_ context.Context, j Job) testreport.File { return r.Run(ctx, j) },
		Emit: func(fr testreport.File) error {
			data = append(data, fr)
			return emit(fr)
		},
	})
	return data, time.Since(begin), err
}

// CIMode is whether mcpv test runs as in CI (--ci): as the flag says when
// it is given, else when the CI environment variable is set (to anything
// but "false" or "0"), as CI systems set it.
func CIMode(flag, given bool, getenv func(string) string) bool {
	if given {
		return flag
	}
	v := strings.ToLower(getenv("CI"))
	return v != "" && v != "false" && v != "0"
}
