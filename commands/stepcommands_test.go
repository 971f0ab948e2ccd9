package commands

import (
	"slices"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/internal/testfile"
)

// The commands a step of a test file may name as its key are the commands
// of the grammar a batch line may run (a step runs as a batch line): a
// command added to one and not the other fails here.
func TestStepCommandsAreTheBatchCommands(t *testing.T) {
	t.Parallel()
	var batch []string
	for _, n := range grammar(t).Node.Children {
		if n.Type == kong.CommandNode && runsInBatch(n) {
			batch = append(batch, n.Name)
		}
	}
	if d := cmp.Diff(slices.Sorted(slices.Values(batch)), slices.Sorted(slices.Values(testfile.StepCommands()))); d != "" {
		t.Errorf("step commands (-the grammar's batch commands +internal/testfile's stepCommands):\n%s", d)
	}
}

// runsInBatch says whether a batch line may run n, or one of its
// subcommands.
func runsInBatch(n *kong.Node) bool {
	if len(n.Children) == 0 {
		cmd := n.Target.Addr().Interface()
		_, server := cmd.(serverCommand)
		_, refused := cmd.(notInBatch)
		return server && !refused
	}
	return slices.ContainsFunc(n.Children, runsInBatch)
}
