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

# (the sub-rooms' ranks and the circle search: rooms.pl, shared with check_rooms.sh)
export ROOMS_PL="$(cd "$(dirname "$0")" && pwd)/rooms.pl"
git ls-files bloomfilter.c 'src/*.c' 'src/*.h' 'core/*.c' 'core/*.h' \
	'clients/*.c' 'clients/*.h' 'clients/*.js' 'clients/*.mjs' 'clients/*.ts' 'clients/*.py' \
	':!:clients/js/node_modules' | perl -e '
	use strict;
	use File::Basename;
	require $ENV{ROOMS_PL};
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
	for my $f (sort keys %lines) {
		if ($f =~ m{^src/runtime/[^/]+/[^/]+/}) {
			print "structure: $f is deeper than a sub-room of src/runtime/\n";
			$status = 1;
		}
		if ($f =~ m{^src/runtime/} && !defined runtime_room($f)) {
			print "structure: $f is in no runtime sub-room (runtime.h lists them)\n";
			$status = 1;
		}
	}
	for my $f (sort keys %includes) {
		for my $t (@{ $includes{$f} }) {
			next unless exists $lines{$t}; # (a PostgreSQL header)
			my ($rf, $rt) = (runtime_room($f), runtime_room($t));
			if (defined $rf && defined $rt && !room_may_use($rf, $rt)) {
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
	# include circles, among our own files
	for my $circle (circles([sort keys %includes],
			sub { grep { exists $lines{$_} } @{ $includes{ $_[0] } || [] } })) {
		print "structure: an include circle: ", join(" -> ", @$circle), "\n";
		$status = 1;
	}
	if ($status == 0) {
		printf "structure: ok (%d files, %d runtime sub-rooms, largest %d lines)\n",
			scalar(keys %lines), scalar(keys %rooms), (sort { $b <=> $a } values %lines)[0];
	}
	exit $status;
'
