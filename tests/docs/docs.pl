#!/usr/bin/perl
# tests/docs/docs.pl: the Markdown side of the docs test (run_docs.sh runs
# psql).  A ```sql block preceded by the line <!-- run --> is run; a bare
# ``` block that follows it (blank lines only between) is its expected
# output, as psql -X -q prints it (no output block: the block must print
# nothing).  <!-- not run: REASON --> before a block exempts it from the lint.
#
#   docs.pl lint FILE...          every fenced sql, text or bare block that is
#                                 neither run, an output, nor marked "not
#                                 run" must show no psql output (result
#                                 headers, "(N rows)", QUERY PLAN, plan
#                                 arrows, an "=#" prompt, ERROR lines); a run
#                                 block must end with ";"
#   docs.pl count FILE            the number of run blocks
#   docs.pl script FILE           the psql script: each run block in order,
#                                 after the line \echo @@docs-block N@@
#   docs.pl compare FILE OUT VER  splits psql's output OUT at those lines and
#                                 compares each block's with the page;
#                                 prints a unified diff for each mismatch;
#                                 VER is the server_version_num
#
# Comparison: trailing blanks are ignored; a line "..." in the page matches
# any number of lines; on PostgreSQL 18 and later EXPLAIN ANALYZE prints
# "rows=N.00" where 15 and 17 print "rows=N", and such counts are read as
# 15's (the pages show 15's form; a fraction other than .00 still differs),
# and so a plan's header (QUERY PLAN centered, a line of dashes) is compared
# without its width.
use strict;
use warnings;
use File::Temp qw(tempdir);

sub blocks {
	my ($file) = @_;
	open my $fh, '<', $file or die "$file: $!\n";
	my @lines = <$fh>;
	close $fh;
	chomp @lines;
	my (@blocks, $open, $marker, $last_nonblank_idx);
	my $prev_nonblank = '';
	my $blank_since_close = 1;
	for (my $i = 0; $i < @lines; $i++) {
		my $l = $lines[$i];
		if (!$open) {
			if ($l =~ /^\s*```\s*([\w+-]*)\s*$/) {
				my $info = $1;
				my $mark = '';
				$mark = 'run' if $prev_nonblank =~ /^<!--\s*run\s*-->\s*$/;
				$mark = 'not run' if $prev_nonblank =~ /^<!--\s*not run:\s*\S.*-->\s*$/;
				$open = { info => $info, start => $i + 1, mark => $mark, text => [],
					after_block => ($prev_nonblank eq "\0close") };
				next;
			}
			$prev_nonblank = $l if $l =~ /\S/;
		} else {
			if ($l =~ /^\s*```\s*$/) {
				push @blocks, $open;
				$open = undef;
				$prev_nonblank = "\0close";
				next;
			}
			push @{ $open->{text} }, $l;
		}
	}
	die "$file: a code block opened at line $open->{start} is never closed\n" if $open;
	# pair each run block with the bare block right after it
	for (my $b = 0; $b < @blocks; $b++) {
		my $blk = $blocks[$b];
		next unless $blk->{mark} eq 'run';
		my $next = $blocks[ $b + 1 ];
		if ($next && $next->{after_block} && $next->{info} eq '' && $next->{mark} eq '') {
			$blk->{output} = $next;
			$next->{mark} = 'output';
		}
	}
	return @blocks;
}

sub looks_like_output {
	my ($text) = @_;
	for my $l (@$text) {
		return "a result header line" if $l =~ /^\s*-{3,}(\+-+)*\s*$/;
		return "a row count" if $l =~ /^\s*\(\d+ rows?\)\s*$/;
		return "QUERY PLAN" if $l =~ /QUERY PLAN/;
		return "a psql prompt" if $l =~ /^\s*\w*=[#>]\s/;
		return "a plan node" if $l =~ /^\s*->  \S/;
		return "an ERROR line" if $l =~ /(^|--\s*)ERROR:/;
		return "a NOTICE line" if $l =~ /^\s*NOTICE:/;
		# results written as comments: "-- t", "-- 3650 | 5", "-- Remote SQL: ..."
		return "a result in a comment" if $l =~ /--\s*(t|f|true|false|\d[\d.,\x{2026}]*)(\s|\||:|$)/
		  || $l =~ /--.*\S \| \S/ || $l =~ /^\s*--\s{2,}\S/ || $l =~ /--\s+(->|Remote SQL:|Hash Join|Custom Scan|Seq Scan)/;
	}
	return undef;
}

sub lint {
	my @files = @_;
	my $bad = 0;
	for my $file (@files) {
		for my $blk (blocks($file)) {
			my $where = "$file:$blk->{start}";
			if ($blk->{mark} eq 'run') {
				if ($blk->{info} ne 'sql') {
					print "$where: <!-- run --> before a block that is not ```sql\n";
					$bad++;
				}
				my @t = grep { /\S/ && !/^\s*--/ } @{ $blk->{text} };
				if (!@t || $t[-1] !~ /(;|\\gx?|\\gexec|\\pset .*)\s*(--.*)?$/) {
					print "$where: a run block must end with a complete statement (;)\n";
					$bad++;
				}
				next;
			}
			next if $blk->{mark} eq 'output' || $blk->{mark} eq 'not run';
			next unless $blk->{info} =~ /^(sql|text|psql|console|)$/;
			my $why = looks_like_output($blk->{text});
			if ($why) {
				print "$where: a block that shows output ($why) is not run: "
				  . "mark it <!-- run --> and put its output in a ``` block after it, "
				  . "or <!-- not run: REASON -->\n";
				$bad++;
			}
		}
	}
	return $bad ? 1 : 0;
}

sub run_blocks { return grep { $_->{mark} eq 'run' } blocks($_[0]) }

sub normalize {
	my ($lines, $version) = @_;
	my @out = map { my $x = $_; $x =~ s/\s+$//; $x } @$lines;
	if ($version >= 180000) {
		s/\brows=(\d+\.\d\d)\b/'rows=' . sprintf('%.0f', $1)/ge for @out;
		# those two characters less make psql's plan column narrower
		for (@out) {
			s/^\s+QUERY PLAN$/QUERY PLAN/;
			s/^-+$/-----/;
		}
	}
	pop @out while @out && $out[-1] eq '';
	shift @out while @out && $out[0] eq '';
	return @out;
}

sub matches {
	my ($expected, $actual) = @_;
	my $re = join '', map { /^\s*\.\.\.\s*$/ ? '(?:[^\n]*\n)*?' : quotemeta($_) . '\n' } @$expected;
	my $text = join '', map { "$_\n" } @$actual;
	return $text =~ /\A$re\z/;
}

my $mode = shift @ARGV // '';
if ($mode eq 'lint') {
	exit lint(@ARGV);
} elsif ($mode eq 'count') {
	print scalar(run_blocks($ARGV[0])), "\n";
} elsif ($mode eq 'script') {
	my $n = 0;
	for my $blk (run_blocks($ARGV[0])) {
		$n++;
		print "\\echo \@\@docs-block $n\@\@\n";
		print "$_\n" for @{ $blk->{text} };
	}
} elsif ($mode eq 'compare') {
	my ($file, $out, $version) = @ARGV;
	my @run = run_blocks($file);
	open my $fh, '<', $out or die "$out: $!\n";
	my (%got, $cur);
	while (my $l = <$fh>) {
		chomp $l;
		if ($l =~ /^\@\@docs-block (\d+)\@\@$/) { $cur = $1; $got{$cur} = []; next; }
		if (!defined $cur) { $got{0} //= []; push @{ $got{0} }, $l; next; }
		push @{ $got{$cur} }, $l;
	}
	close $fh;
	my $bad = 0;
	my $dir = tempdir(CLEANUP => 1);
	if ($got{0} && grep { /\S/ } @{ $got{0} }) {
		print "$file: output before the first block:\n", map { "  $_\n" } @{ $got{0} };
		$bad++;
	}
	for my $i (1 .. @run) {
		my $blk = $run[ $i - 1 ];
		my @exp = normalize($blk->{output} ? $blk->{output}{text} : [], $version);
		my @act = normalize($got{$i} // ['(the block did not run)'], $version);
		next if matches(\@exp, \@act);
		$bad++;
		my $line = $blk->{output} ? $blk->{output}{start} : $blk->{start};
		open my $e, '>', "$dir/expected" or die;
		print $e map { "$_\n" } @exp;
		close $e;
		open my $a, '>', "$dir/actual" or die;
		print $a map { "$_\n" } @act;
		close $a;
		print "$file: the block at line $blk->{start} printed other output than the page shows (line $line):\n";
		system('diff', '-u', '--label', "$file:$line (the page)", '--label', 'psql', "$dir/expected", "$dir/actual");
	}
	exit($bad ? 1 : 0);
} else {
	die "usage: $0 lint FILE... | count FILE | script FILE | compare FILE OUT VERSION_NUM\n";
}
