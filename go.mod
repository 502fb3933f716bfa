module github.com/treelb/treelb

go 1.26
