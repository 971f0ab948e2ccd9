package commands

// stackAhead is how much stack growStack makes room for: more than a
// command line's run uses on the goroutine that runs it (kong's parse and
// Run through reflection, a session's start and its first call).
const stackAhead = 64 << 10

// stackIndex is read, never written (runs share it at once, in tests):
// growStack's frame holds on its value, so it is not optimised away.
var stackIndex int

// growStack grows the calling goroutine's stack, while it is shallow, to
// what a run will need. A goroutine starts with a few kilobytes and
// doubles its stack each time a call runs out, copying it whole and
// walking each of its frames' tables: for a run, three or four such copies
// deep in kong's reflection took about 5% of its instructions, where one
// copy of a shallow stack takes a fraction of that. What is grown stays:
// a stack shrinks only at a collection, which a short run does not have
// (see gcstart).
//
//go:noinline
func growStack() byte {
	var pad [stackAhead]byte
	pad[stackIndex] = 1
	return pad[len(pad)-1-stackIndex]
}
