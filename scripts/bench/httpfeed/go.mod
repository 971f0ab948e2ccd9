module httpfeed

go 1.26
