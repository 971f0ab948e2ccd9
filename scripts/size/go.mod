module github.com/mcpv/mcpv/scripts/size

go 1.25
