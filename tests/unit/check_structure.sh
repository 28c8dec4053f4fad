#!/usr/bin/env bash
# tests/unit/check_structure.sh: the shape of the tree a newcomer reads,
# from the sources (no build needed):
#   - no source file over 600 lines (bloomfilter.c, src/, core/, the
#     clients' sources and tests), and no header in src/ over 400 (past
#     that, a room wants sub-rooms);
#   - no .c name twice under src/ (a name says which file it is, in any
#     room);
#   - each sub-room of the runtime filters' room (a folder of src/runtime/)
#     has exactly one header, named after it, and no file outside the
#     folder includes anything else of it; a sub-room includes only the
#     headers of rooms below it (the ranks check_rooms.sh reads from the
#     objects, here for what objects do not show: inline functions, macros,
#     struct layouts); no folder deeper than one under src/runtime/;
#   - no include circles among our own files (#include "...", resolved
#     from the including file's folder).
# Run from the top folder; prints "structure: ok" or what breaks a rule,
# and exits non-zero then.
set -euo pipefail

git ls-files bloomfilter.c 'src/*.c' 'src/*.h' 'core/*.c' 'core/*.h' \
	'clients/*.c' 'clients/*.h' 'clients/*.js' 'clients/*.mjs' 'clients/*.ts' 'clients/*.py' \
	':!:clients/js/node_modules' | perl -e '
	use strict;
	use File::Basename;
	use File::Spec;
	my @files = map { chomp; $_ } <STDIN>;
	my $status = 0;
	my (%lines, %includes, %seen_c);
	for my $f (@files) {
		next unless -f $f; # deleted in the working tree, not yet in the index
		open(my $fh, "<", $f) or die "$f: $!";
		my $n = 0;
		while (my $line = <$fh>) {
			$n++;
			if ($f =~ /\.[ch]$/ && $line =~ /^\s*#\s*include\s+"([^"]+)"/) {
				my $target = File::Spec->canonpath(dirname($f) . "/" . $1);
				1 while $target =~ s{(^|/)(?!\.\./)[^/]+/\.\./}{$1};
				push @{ $includes{$f} }, $target;
			}
		}
		close $fh;
		$lines{$f} = $n;
		if ($n > 600) {
			print "structure: $f has $n lines (at most 600)\n";
			$status = 1;
		}
		if ($f =~ m{^src/.*\.h$} && $n > 400) {
			print "structure: $f has $n lines (a header past 400 wants sub-rooms)\n";
			$status = 1;
		}
		if ($f =~ m{^src/.*\.c$}) {
			my $base = basename($f);
			if (exists $seen_c{$base}) {
				print "structure: $base is both $seen_c{$base} and $f\n";
				$status = 1;
			}
			$seen_c{$base} = $f;
		}
	}
	# the runtime sub-rooms: one header each, the only one included from outside
	my %rooms;
	for my $f (@files) {
		$rooms{$1}{$f} = 1 if $f =~ m{^src/runtime/([^/]+)/[^/]+$};
	}
	for my $room (sort keys %rooms) {
		my @headers = grep { /\.h$/ } sort keys %{ $rooms{$room} };
		if (@headers != 1 || $headers[0] ne "src/runtime/$room/$room.h") {
			print "structure: src/runtime/$room/ has headers (@headers), not one $room.h\n";
			$status = 1;
		}
	}
	sub rank_of {
		my ($f) = @_;
		return 0 if $f =~ m{^src/runtime/(settings|private|cost)\.[ch]$};
		return 4 if $f =~ m{^src/runtime/(hooks\.c|runtime\.h)$};
		my %r = (filter => 1, skip => 2, ship => 2, plan => 3, exec => 3);
		return $r{$1} if $f =~ m{^src/runtime/([^/]+)/[^/]+$} && exists $r{$1};
		return undef;
	}
	for my $f (sort keys %lines) {
		if ($f =~ m{^src/runtime/[^/]+/[^/]+/}) {
			print "structure: $f is deeper than a sub-room of src/runtime/\n";
			$status = 1;
		}
		if ($f =~ m{^src/runtime/} && !defined rank_of($f)) {
			print "structure: $f is in no runtime sub-room (runtime.h lists them)\n";
			$status = 1;
		}
	}
	for my $f (sort keys %includes) {
		for my $t (@{ $includes{$f} }) {
			next unless exists $lines{$t}; # (a PostgreSQL header)
			my ($rf, $rt) = (rank_of($f), rank_of($t));
			# below it, or in its own folder; plan/ makes the nodes of exec/
			if (defined $rf && defined $rt &&
				($rt > $rf || ($rt == $rf && dirname($f) ne dirname($t) &&
					!($f =~ m{^src/runtime/plan/} && $t =~ m{^src/runtime/exec/})))) {
				print "structure: $f includes $t, not a room below it\n";
				$status = 1;
			}
			next unless $t =~ m{^src/runtime/([^/]+)/([^/]+)$};
			my ($room, $name) = ($1, $2);
			next if $f =~ m{^src/runtime/\Q$room\E/};
			if ($name ne "$room.h") {
				print "structure: $f includes $t, not the door of src/runtime/$room/\n";
				$status = 1;
			}
		}
	}
	# include circles: a depth-first search for a back edge
	my (%state, @path);
	my $visit;
	$visit = sub {
		my ($v) = @_;
		$state{$v} = 1;
		push @path, $v;
		for my $w (@{ $includes{$v} || [] }) {
			next unless exists $lines{$w};
			if (($state{$w} // 0) == 1) {
				my @cycle = (@path[(grep { $path[$_] eq $w } 0 .. $#path)[0] .. $#path], $w);
				print "structure: an include circle: ", join(" -> ", @cycle), "\n";
				$status = 1;
			} elsif (!$state{$w}) {
				$visit->($w);
			}
		}
		pop @path;
		$state{$v} = 2;
	};
	for my $v (sort keys %includes) { $visit->($v) unless $state{$v}; }
	if ($status == 0) {
		printf "structure: ok (%d files, %d runtime sub-rooms, largest %d lines)\n",
			scalar(keys %lines), scalar(keys %rooms), (sort { $b <=> $a } values %lines)[0];
	}
	exit $status;
'
