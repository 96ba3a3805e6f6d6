module promoflow.dev/tests/vectors/goduration

go 1.22
