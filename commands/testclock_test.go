package commands

import (
	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// onClock is env with the timers of its bounds on the test's clock.
func onClock(env connect.Env, clock *mcptest.Clock) connect.Env {
	env.AfterFunc = clock.AfterFunc
	return env
}
