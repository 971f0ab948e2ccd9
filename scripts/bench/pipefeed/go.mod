module pipefeed

go 1.26
