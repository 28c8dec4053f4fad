#!/usr/bin/env bash
# tests/unit/check_rooms.sh: the PostgreSQL layer's rooms, read from the built
# objects (nm: what each object defines, and what it calls in other files),
# as check_layers.sh reads the core's layers.
#   - no circles: the graph of "object A calls a function or reads a variable
#     that object B defines" over bloomfilter.o and src/**/*.o has no cycle;
#   - the front door (bloomfilter.o) starts the runtime filters' room only
#     through its door (runtime.h: bloom_rf_module_init, in hooks.o);
#   - the runtime filters' room (src/runtime/**) calls into the rest of the
#     layer only bloom_error.h's functions, and the index room's door
#     (src/index/source.h: the bloom_index_source_* functions, defined in
#     src/index/amsource.o);
#   - inside it, each sub-room calls only rooms below it (runtime.h lists
#     them, lowest first): the bottom (settings, private, cost), then
#     filter/, then skip/ and ship/ (which never call each other), then
#     plan/ and exec/ (plan/ makes exec/'s nodes; exec/ never calls plan/),
#     then hooks.o;
#   - the type's room (src/*.o) never calls into the runtime filters' room;
#   - the index's room (src/index/*.o) calls into the rest of the layer only
#     what its header includes besides the core: bloom_error.h and the
#     hasher of bloom_value.h; the type's room never calls into it, the
#     runtime filters' only through its door (the front door registers its
#     options).
# Run from the top folder after `make`; prints "rooms: ok" or what breaks a
# rule, and exits non-zero then.
set -euo pipefail

shopt -s nullglob globstar
objects=(bloomfilter.o src/*.o src/runtime/**/*.o src/index/**/*.o)
[ ${#objects[@]} -gt 4 ] || {
	echo "rooms: no objects (run make first)"
	exit 1
}
# (the sub-rooms' ranks and the circle search: rooms.pl, shared with check_structure.sh)
export ROOMS_PL="$(cd "$(dirname "$0")" && pwd)/rooms.pl"
for obj in "${objects[@]}"; do
	echo "@ $obj"
	nm "$obj"
done | perl -e '
	use strict;
	require $ENV{ROOMS_PL};
	my ($obj, %defines, %calls, @objects);
	while (<STDIN>) {
		if (/^@ (\S+)/) { $obj = $1; push @objects, $obj; next; }
		if (/^\s+U (\S+)/) { $calls{$obj}{$1} = 1; next; }
		$defines{$2} = $obj if /^[0-9a-f]+ ([TDBR]) (\S+)/;
	}
	my $status = 0;
	# the edges between objects, with the symbols behind each
	my %edge;
	for my $from (sort keys %calls) {
		for my $sym (sort keys %{ $calls{$from} }) {
			my $to = $defines{$sym};
			next unless defined $to && $to ne $from;
			push @{ $edge{$from}{$to} }, $sym;
		}
	}
	# every object of the room is in a sub-room, whether or not it calls anything
	for my $o (@objects) {
		next unless $o =~ m{^src/runtime/} && !defined runtime_room($o);
		print "rooms: $o is in no runtime sub-room (runtime.h lists them)\n";
		$status = 1;
	}
	my @error_h = qw(bloom_report bloom_report_as);
	my @hasher_h = qw(bloom_hasher_init bloom_hasher_init_for_writes bloom_hash_value);
	my $door = qr/^bloom_index_source_\w+$/;
	for my $from (sort keys %edge) {
		for my $to (sort keys %{ $edge{$from} }) {
			my @syms = @{ $edge{$from}{$to} };
			if ($from eq "bloomfilter.o" && $to =~ m{^src/runtime/}) {
				my @bad = grep { $_ ne "bloom_rf_module_init" } @syms;
				if (@bad) {
					print "rooms: the front door calls @bad in $to, behind the door of the runtime room\n";
					$status = 1;
				}
			}
			if ($from =~ m{^src/runtime/} && $to eq "src/index/amsource.o") {
				my @bad = grep { $_ !~ $door } @syms;
				if (@bad) {
					print "rooms: $from calls @bad in $to, outside the door of the index room\n";
					$status = 1;
				}
				next;
			}
			if ($from =~ m{^src/runtime/} && $to eq "bloomfilter.o") {
				print "rooms: $from calls @syms in the front door\n";
				$status = 1;
			}
			if ($from =~ m{^src/runtime/} && $to !~ m{^src/runtime/} && $to =~ m{^src/}) {
				my @bad = grep { my $s = $_; !grep { $_ eq $s } @error_h } @syms;
				if (@bad) {
					print "rooms: $from calls @bad in $to, outside what the runtime room may use\n";
					$status = 1;
				}
			}
			my ($rf, $rt) = (runtime_room($from), runtime_room($to));
			if (defined $rf && defined $rt && !room_may_use($rf, $rt)) {
				print "rooms: $from ($rf) calls @syms in $to ($rt), not a room below it\n";
				$status = 1;
			}
			if ($from =~ m{^src/[^/]+\.o$} && $to =~ m{^src/runtime/}) {
				print "rooms: $from (the type) calls @syms in $to (runtime filters)\n";
				$status = 1;
			}
			if ($from =~ m{^src/index/} && $to !~ m{^src/index/} && $to =~ m{^src/}) {
				my @bad = grep { my $s = $_; !grep { $_ eq $s } (@error_h, @hasher_h) } @syms;
				if (@bad) {
					print "rooms: $from calls @bad in $to, outside what bloomindex.h names\n";
					$status = 1;
				}
			}
			if ($from =~ m{^src/(?:runtime/)?[^/]+\.o$} && $to =~ m{^src/index/}) {
				# (a runtime object reaching amsource.o was judged above)
				print "rooms: $from calls @syms in $to (the index)\n";
				$status = 1;
			}
		}
	}
	for my $circle (circles([sort keys %edge], sub { sort keys %{ $edge{ $_[0] } || {} } })) {
		print "rooms: a circle: ", join(" -> ", @$circle), "\n";
		$status = 1;
	}
	print "rooms: ok\n" if $status == 0;
	exit $status;
'
