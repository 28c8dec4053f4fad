#!/usr/bin/perl
# tests/pg_suite/strip_plans.pl FILE: print a pg_regress result file with
# every EXPLAIN output psql printed (a "QUERY PLAN" column, text or any other
# format, through its "(N rows)" line) replaced by one line "<plan>".
# pg_suite.sh compares the run whose join search prices what runtime filters
# skip (bloomfilter.runtime_filter_skip_costing, which may change a plan)
# with the run without filters through it: any difference left is one in
# the rows, errors or notices of a query, or in a plan printed some other
# way (a test's own function over EXPLAIN), which it reports.
use strict;
use warnings;

my @lines = <>;
for (my $i = 0; $i < @lines; $i++) {
	if ($lines[$i] =~ /^\s*QUERY PLAN\s*$/ && $i + 1 < @lines && $lines[$i + 1] =~ /^-+$/) {
		$i++ while $i < @lines && $lines[$i] !~ /^\(\d+ rows?\)$/;
		print "<plan>\n";
		next;
	}
	print $lines[$i];
}
