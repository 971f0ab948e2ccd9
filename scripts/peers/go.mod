module github.com/mcpv/mcpv/scripts/peers

go 1.26.0
