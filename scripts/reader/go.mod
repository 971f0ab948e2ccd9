module github.com/mcpv/mcpv/scripts/reader

go 1.26.0
