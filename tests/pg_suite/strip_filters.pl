#!/usr/bin/perl
# tests/pg_suite/strip_filters.pl FILE: print a pg_regress result file as it
# would read had no runtime filter been planned: every BloomFilterProbe and
# BloomFilterBuild node of a text-format EXPLAIN is removed with its property
# lines, the subtree under it moves up one level (six columns), and the row
# count under the plan, "(N rows)", drops by the lines removed.  Nothing else
# changes but the width of a plan's header ("QUERY PLAN" and the dashes under
# it, which psql pads to the longest line), written the same in every file.
# A BloomFilterScan (a Seq Scan that skips a partition, or reads only the
# block ranges a BRIN index gives) reads again as the "Seq Scan on" it
# replaced, without its own property lines.
# pg_suite.sh runs both runs' files through it, so any difference left is one
# in the rows, errors or notices of a query, or in an EXPLAIN format other
# than text (JSON, XML, YAML), which it reports apart.
use strict;
use warnings;

my @lines = <>;
my $removed = 0;    # lines removed since the last "(N rows)"
my @stack;          # [arrow column, node column] of our nodes being removed
for (my $i = 0; $i < @lines; $i++) {
	my $line = $lines[$i];
	my ($indent) = $line =~ /^( *)/;
	my $col = length($indent);

	# leaving the subtrees of our nodes: a line at or left of the arrow
	while (@stack && $col <= $stack[-1][0] && $line !~ /^\s*$/) {
		pop @stack;
	}
	if ($line =~ /^( *)(->  )(?:Parallel )?Custom Scan \(BloomFilter(Probe|Build)\)/) {
		my ($arrow, $node) = (length($1), length($1) + 4);
		$removed++;
		# its properties: deeper than the node's name, up to its child's arrow
		while ($i + 1 < @lines && $lines[$i + 1] =~ /^( *)(\S.*)$/
			&& length($1) == $node + 2 && $2 !~ /^->/) {
			$i++;
			$removed++;
		}
		push @stack, [$arrow, $node];
		next;
	}
	if ($line =~ /^( *)(->  )?Custom Scan \(BloomFilterScan\) on (.*)$/) {
		# its property lines, ours among the scan's own (Filter: comes first)
		my $props = length($1) + (defined $2 ? 4 : 0) + 2;
		$line = $1 . (defined $2 ? $2 : '') . "Seq Scan on $3\n";
		for (my $j = $i + 1; $j < @lines && $lines[$j] =~ /^( *)(\S.*)$/
			&& length($1) == $props && $2 !~ /^->/; $j++) {
			if ($lines[$j] =~ /^ *(Runtime Filter|B-tree Index|Read Through B-tree|BRIN Index|Heap Blocks Read|Whole Table Read|Partition Scans Skipped|Skip Test): /) {
				splice(@lines, $j, 1);
				$j--;
				$removed++;
			}
		}
	}
	if (@stack) {
		my $shift = 6 * @stack;
		$line =~ s/^ {$shift}// if $col >= $shift;
	}
	$line = "QUERY PLAN\n" if $line =~ /^ +QUERY PLAN +$/;
	$line = "----------\n" if $line =~ /^-+$/;
	if ($line =~ /^\((\d+) rows?\)$/) {
		my $n = $1 - $removed;
		$line = $n == 1 ? "(1 row)\n" : "($n rows)\n";
		$removed = 0;
	}
	print $line;
}
