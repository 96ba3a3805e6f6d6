module promoflow.dev/tests/vectors/govaluate

go 1.22

require github.com/Knetic/govaluate v3.0.1-0.20250325060307-7625b7f8c03d+incompatible
