module github.com/mcpv/mcpv/scripts/sbom

go 1.26.0
