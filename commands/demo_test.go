package commands

func runDemoIfRequested() bool { return false }
