#!/usr/bin/env bash
# tests/unit/check_rooms.sh: the PostgreSQL layer's rooms, read from the built
# objects (nm: what each object defines, and what it calls in other files),
# as check_layers.sh reads the core's layers.
#   - no circles: the graph of "object A calls a function or reads a variable
#     that object B defines" over bloomfilter.o and src/**/*.o has no cycle;
#   - the runtime filters' room (src/runtime/*.o) calls into the rest of the
#     layer only what its header includes besides the core: bloom_error.h,
#     and the index room's door (src/index/source.h: the bloom_index_source_*
#     functions, defined in src/index/source.o);
#   - the type's room (src/*.o) never calls into the runtime filters' room;
#     only the front door (bloomfilter.o) starts it;
#   - the index's room (src/index/*.o) calls into the rest of the layer only
#     what its header includes besides the core: bloom_error.h and the
#     hasher of bloom_value.h; the type's room never calls into it, the
#     runtime filters' only through its door (the front door registers its
#     options).
# Run from the top folder after `make`; prints "rooms: ok" or what breaks a
# rule, and exits non-zero then.
set -euo pipefail

shopt -s nullglob
objects=(bloomfilter.o src/*.o src/runtime/*.o src/index/*.o)
[ ${#objects[@]} -gt 4 ] || {
	echo "rooms: no objects (run make first)"
	exit 1
}
for obj in "${objects[@]}"; do
	echo "@ $obj"
	nm "$obj"
done | perl -e '
	use strict;
	my ($obj, %defines, %calls);
	while (<STDIN>) {
		if (/^@ (\S+)/) { $obj = $1; next; }
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
	my @error_h = qw(bloom_report bloom_report_as);
	my @hasher_h = qw(bloom_hasher_init bloom_hash_value);
	my $door = qr/^bloom_index_source_\w+$/;
	for my $from (sort keys %edge) {
		for my $to (sort keys %{ $edge{$from} }) {
			my @syms = @{ $edge{$from}{$to} };
			if ($from =~ m{^src/runtime/} && $to eq "src/index/source.o") {
				my @bad = grep { $_ !~ $door } @syms;
				if (@bad) {
					print "rooms: $from calls @bad in $to, outside the door of the index room\n";
					$status = 1;
				}
				next;
			}
			if ($from =~ m{^src/runtime/} && $to !~ m{^src/runtime/} && $to =~ m{^src/}) {
				my @bad = grep { my $s = $_; !grep { $_ eq $s } @error_h } @syms;
				if (@bad) {
					print "rooms: $from calls @bad in $to, outside what runtime.h names\n";
					$status = 1;
				}
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
				# (a runtime object reaching source.o was judged above)
				print "rooms: $from calls @syms in $to (the index)\n";
				$status = 1;
			}
		}
	}
	# cycles: a depth-first search that finds a back edge
	my (%state, @path);
	my $visit;
	$visit = sub {
		my ($v) = @_;
		$state{$v} = 1;
		push @path, $v;
		for my $w (sort keys %{ $edge{$v} || {} }) {
			if (($state{$w} // 0) == 1) {
				my @cycle = (@path[(grep { $path[$_] eq $w } 0 .. $#path)[0] .. $#path], $w);
				print "rooms: a circle: ", join(" -> ", @cycle), "\n";
				$status = 1;
			} elsif (!$state{$w}) {
				$visit->($w);
			}
		}
		pop @path;
		$state{$v} = 2;
	};
	for my $v (sort keys %edge) { $visit->($v) unless $state{$v}; }
	print "rooms: ok\n" if $status == 0;
	exit $status;
'
