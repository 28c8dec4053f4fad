#!/usr/bin/env bash
# tests/unit/check_links.sh: every relative link of the tracked Markdown
# files resolves.
#   - the files: `git ls-files '*.md'` (node_modules and anything outside
#     the repository left out);
#   - the links: inline links and images, [text](target) and
#     ![alt](target), and reference definitions, [label]: target, outside
#     fenced code blocks and code spans; a target with a scheme (http:,
#     https:, mailto:, ...) is not checked;
#   - a target must exist, relative to the linking file's folder (a target
#     starting with / to the repository's top), as a file or a folder;
#   - an #anchor (alone: the same file) must be the GitHub slug of a
#     heading of the target, when the target is a Markdown file: the
#     heading's text lowercased, everything but letters, digits, marks,
#     spaces, hyphens and underscores dropped, each space a hyphen; the
#     second heading of a slug gets -1, the third -2, ...  (explicit
#     <a name="..."> and id="..." anchors count too).
# Run from anywhere in the repository; prints "links: ok", or each broken
# link as file:line: target (and why), and exits non-zero then.  Needs bash,
# git and perl only.
set -euo pipefail

top=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$top"

prog=$(
	cat <<'PERL'
use strict;
use warnings;
use utf8;
use Encode qw(decode encode);

binmode(STDOUT, ":encoding(UTF-8)");

# paths are held as text, and encoded again where they meet the file system
my @files = grep { $_ ne "" && !m{(^|/)node_modules/} && !m{^\.\./} } map { chomp; decode("UTF-8", $_) } <STDIN>;
my %slugs;     # file => { slug => 1 }
my $broken = 0;
my $checked = 0;

sub read_lines {
	my ($path) = @_;
	open(my $fh, "<:raw", encode("UTF-8", $path)) or return undef;
	local $/ = undef;
	my $text = <$fh>;
	close $fh;
	$text = decode("UTF-8", $text);
	return [ split /\n/, $text, -1 ];
}

# The rendered text of a heading: links to their text, code spans to their
# content, HTML tags out.
sub heading_text {
	my ($t) = @_;
	$t =~ s/\s+#+\s*$//;                         # closing hashes
	$t =~ s/!?\[([^\]]*)\]\([^)]*\)/$1/g;        # links, images
	$t =~ s/<[^>]+>//g;                          # inline HTML
	$t =~ s/^\s+|\s+$//g;
	return $t;
}

sub slug_of {
	my ($t) = @_;
	$t = lc $t;
	$t =~ s/[^\p{L}\p{N}\p{M} _-]//g;
	$t =~ s/ /-/g;
	return $t;
}

# Walks a file line by line outside fenced code blocks; calls $cb with the
# line number and the line.
sub each_prose_line {
	my ($lines, $cb) = @_;
	my $fence = "";
	for my $i (0 .. $#$lines) {
		my $l = $lines->[$i];
		if ($fence eq "") {
			if ($l =~ /^\s{0,3}(`{3,}|~{3,})/) {
				$fence = $1;
				next;
			}
			$cb->($i + 1, $l);
		} elsif ($l =~ /^\s{0,3}(`{3,}|~{3,})\s*$/ && substr($1, 0, 1) eq substr($fence, 0, 1)
			&& length($1) >= length($fence)) {
			$fence = "";
		}
	}
}

sub slugs_of {
	my ($path) = @_;
	return $slugs{$path} if exists $slugs{$path};
	my $lines = read_lines($path);
	my %seen;
	my %set;
	if (defined $lines) {
		each_prose_line($lines, sub {
			my ($n, $l) = @_;
			if ($l =~ /^\s{0,3}#{1,6}\s+(.*)$/) {
				my $s = slug_of(heading_text($1));
				my $u = $s;
				$u = $s . "-" . $seen{$s} if $seen{$s};
				$seen{$s}++;
				$set{$u} = 1;
			}
			while ($l =~ /<a\s[^>]*\b(?:name|id)\s*=\s*"([^"]+)"/gi) {
				$set{$1} = 1;
			}
		});
	}
	$slugs{$path} = \%set;
	return \%set;
}

sub normalize {
	my ($p) = @_;
	my @out;
	for my $part (split m{/}, $p) {
		next if $part eq "" || $part eq ".";
		if ($part eq "..") {
			return undef unless @out;      # leaves the repository
			pop @out;
		} else {
			push @out, $part;
		}
	}
	return join("/", @out);
}

# %xx escapes of a link target, read as UTF-8
sub unescape {
	my ($t) = @_;
	return $t unless $t =~ /%[0-9A-Fa-f]{2}/;
	my $b = encode("UTF-8", $t);
	$b =~ s/%([0-9A-Fa-f]{2})/chr(hex($1))/ge;
	return decode("UTF-8", $b);
}

sub check {
	my ($file, $n, $target) = @_;
	$target =~ s/^<(.*)>$/$1/;
	return if $target eq "";
	return if $target =~ m{^[A-Za-z][A-Za-z0-9+.-]*:};    # http:, https:, mailto:, ...
	$checked++;
	my ($path, $anchor) = $target =~ /^([^#]*)(?:#(.*))?$/;
	$path = unescape($path);
	my $resolved;
	if ($path eq "") {
		$resolved = $file;
	} else {
		(my $dir = $file) =~ s{[^/]*$}{};
		$resolved = normalize($path =~ m{^/} ? $path : $dir . $path);
		if (!defined $resolved || ($resolved ne "" && !-e encode("UTF-8", $resolved))) {
			print "$file:$n: $target (no such file)\n";
			$broken++;
			return;
		}
	}
	return unless defined $anchor && $anchor ne "";
	return unless $resolved =~ /\.md$/i && -f encode("UTF-8", $resolved);
	my $want = unescape($anchor);
	unless (slugs_of($resolved)->{$want}) {
		print "$file:$n: $target (no heading with that anchor in $resolved)\n";
		$broken++;
	}
}

for my $file (@files) {
	my $lines = read_lines($file);
	unless (defined $lines) {
		print "$file: cannot read\n";
		$broken++;
		next;
	}
	each_prose_line($lines, sub {
		my ($n, $l) = @_;
		# reference definitions
		if ($l =~ /^\s{0,3}\[[^\]]+\]:\s*(\S+)/) {
			check($file, $n, $1);
			return;
		}
		# code spans out (their text is not a link)
		(my $t = $l) =~ s/(`+)(?:(?!\1).)+?\1//g;
		while ($t =~ /!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)/g) {
			check($file, $n, $1);
		}
	});
}

if ($broken) {
	print "links: $broken broken of $checked\n";
	exit 1;
}
print "links: ok\n";
PERL
)
git ls-files -z -- '*.md' | perl -0 -e "$prog"
