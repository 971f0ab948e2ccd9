module sessionfloor

go 1.26
