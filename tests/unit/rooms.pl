# tests/unit/rooms.pl: what check_rooms.sh (from the objects) and
# check_structure.sh (from the sources) share: the runtime filters'
# sub-rooms with their ranks, which room may use which, and the circles of a
# graph.  One table, so that the two checks cannot disagree on a room.
use strict;
use warnings;

# Ranks, lowest first (src/runtime/runtime.h lists the rooms): a room uses
# only rooms of a lower rank, or itself.
my %rank = (bottom => 0, values => 1, filter => 2, skip => 3, ship => 3, exec => 4, paths => 5, plan => 6, door => 7);

# The runtime sub-room of a path under src/runtime/ (a source, a header or
# an object), or undef: the bottom (settings, private, cost), a folder, or
# the door (runtime.h and hooks.c, which wires the rooms together, and
# status.c, which says whether they are active).
sub runtime_room {
	my ($path) = @_;
	return "bottom" if $path =~ m{^src/runtime/(settings|private|cost)\.[cho]$};
	return "door" if $path =~ m{^src/runtime/(hooks\.[co]|status\.[co]|runtime\.h)$};
	return $1 if $path =~ m{^src/runtime/([^/]+)/[^/]+$} && exists $rank{$1} && $1 ne "bottom" && $1 ne "door";
	return undef;
}

# Whether room from may use room to: itself, or a room below it (plan/
# makes the nodes of exec/ and takes out paths/' markers; paths/ makes the
# marker's node of exec/).
sub room_may_use {
	my ($from, $to) = @_;
	return $from eq $to || $rank{$to} < $rank{$from};
}

# The circles of a directed graph: nodes (a list, in the order to visit
# them) and next (a function giving a node's successors, in order).  Each
# circle is a list of nodes that ends where it began.
sub circles {
	my ($nodes, $next) = @_;
	my (%state, @path, @found);
	my $visit;
	$visit = sub {
		my ($v) = @_;
		$state{$v} = 1;
		push @path, $v;
		for my $w ($next->($v)) {
			if (($state{$w} // 0) == 1) {
				push @found, [@path[(grep { $path[$_] eq $w } 0 .. $#path)[0] .. $#path], $w];
			} elsif (!$state{$w}) {
				$visit->($w);
			}
		}
		pop @path;
		$state{$v} = 2;
	};
	for my $v (@$nodes) { $visit->($v) unless $state{$v}; }
	undef $visit; # (the closure refers to itself)
	return @found;
}

1;
