#!/usr/bin/perl
# tools/pgxn_check.pl ZIP: check a PGXN release zip (make dist).
#
# Against PGXN's META.json spec 1.0.0 (https://pgxn.org/spec/): the required
# keys (name, version, abstract, maintainer, license, provides, meta-spec)
# and the types and forms of every key it defines that the file uses.
# Against the distribution: every entry sits under NAME-VERSION/, the zip is
# named NAME-VERSION.zip, META.json is at its top, each extension's "file"
# and "docfile" are in it, the control file's default_version is the
# extension's version (1.12 for 1.12.0), and the zip holds exactly the files
# of the committed tree (git ls-files at HEAD, less what .gitattributes marks
# export-ignore) when run in a checkout.
#
# Prints each problem, then "pgxn: ok" or "pgxn: N problems"; exits 1 on any.
use strict;
use warnings;
use JSON::PP;
use File::Basename qw(basename dirname);
use File::Temp;

my $zip = shift or die "usage: $0 ZIP\n";
my @problems;
sub problem { push @problems, join('', @_) }

my @entries = map { chomp; $_ } `unzip -Z1 \Q$zip\E`;
$? == 0 or die "pgxn: cannot list $zip\n";
my @files = grep { !m{/$} } @entries;
my ($top) = $entries[0] =~ m{^([^/]+)/} or die "pgxn: $entries[0] is not under a directory\n";
problem("$_ is not under $top/") for grep { !m{^\Q$top\E/} } @entries;
my %in_zip = map { s{^\Q$top\E/}{}r => 1 } @files;

my $json = `unzip -p \Q$zip\E \Q$top\E/META.json`;
$? == 0 or die "pgxn: no $top/META.json in $zip\n";
my $meta = eval { JSON::PP->new->decode($json) } or die "pgxn: META.json is not JSON: $@\n";

my $version_core = qr/(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)(?:-[A-Za-z][0-9A-Za-z-]*)?/;
my $semver = qr/^$version_core$/;
# a prereq's version: 0, a version, or comparisons joined by commas (">= 1.2.0, != 1.5.0")
my $comparison = qr/^\s*(?:(?:>=|<=|==|!=|>|<)\s*)?(?:0|$version_core)\s*$/;
my %licenses = map { $_ => 1 } qw(agpl_3 apache_1_1 apache_2_0 artistic_1 artistic_2 bsd freebsd
  gfdl_1_2 gfdl_1_3 gpl_1 gpl_2 gpl_3 lgpl_2_1 lgpl_3_0 mit mozilla_1_0 mozilla_1_1 openssl perl_5
  postgresql qpl_1_0 ssleay sun zlib open_source restricted unrestricted unknown);
my %known = map { $_ => 1 } qw(name version abstract maintainer license provides meta-spec
  description generated_by tags no_index prereqs release_status resources);

sub is_string { defined $_[0] && !ref $_[0] && length $_[0] }
sub strings {
	my ($v, $what) = @_;
	my @list = ref $v eq 'ARRAY' ? @$v : ($v);
	problem("$what must be a string or a list of strings") if !@list || grep { !is_string($_) } @list;
}

for my $key (qw(name version abstract maintainer license provides meta-spec)) {
	problem("META.json lacks \"$key\"") unless exists $meta->{$key};
}
for my $key (sort keys %$meta) {
	problem("META.json has \"$key\", which the spec does not define (custom keys start with x_ or X_)")
	  unless $known{$key} || $key =~ /^[xX]_/;
}
problem("name \"$meta->{name}\" must be at least 2 characters, with no whitespace, /, \\ or :")
  unless is_string($meta->{name}) && length $meta->{name} >= 2 && $meta->{name} !~ m{[\s/\\:]};
problem("version \"$meta->{version}\" is not a semantic version")
  unless is_string($meta->{version}) && $meta->{version} =~ $semver;
problem("abstract must be a string") unless is_string($meta->{abstract});
strings($meta->{maintainer}, "maintainer");
for my $l (ref $meta->{license} eq 'ARRAY' ? @{ $meta->{license} } : ref $meta->{license} eq 'HASH' ? () : ($meta->{license})) {
	problem("license \"$l\" is none of the spec's") unless defined $l && $licenses{$l};
}
if (ref $meta->{license} eq 'HASH') {
	problem("license $_ must be a URL") for grep { $meta->{license}{$_} !~ m{^https?://} } keys %{ $meta->{license} };
}
my $spec = $meta->{'meta-spec'};
problem("meta-spec.version must be 1.0.0")
  unless ref $spec eq 'HASH' && ($spec->{version} // '') eq '1.0.0';
if (exists $meta->{release_status}) {
	problem("release_status must be stable, testing or unstable")
	  unless ($meta->{release_status} // '') =~ /^(stable|testing|unstable)$/;
}
if (exists $meta->{tags}) {
	problem("tags must be a list of strings of at most 255 characters")
	  unless ref $meta->{tags} eq 'ARRAY' && !grep { !is_string($_) || length $_ > 255 } @{ $meta->{tags} };
}
if (exists $meta->{resources}) {
	my $r = $meta->{resources};
	problem("resources must be an object") unless ref $r eq 'HASH';
	problem("resources.homepage must be a URL")
	  if ref $r eq 'HASH' && exists $r->{homepage} && ($r->{homepage} // '') !~ m{^https?://};
}
if (exists $meta->{prereqs}) {
	my $p = $meta->{prereqs};
	for my $phase (sort keys %$p) {
		problem("prereqs phase \"$phase\" is none of configure, build, test, runtime, develop")
		  unless $phase =~ /^(configure|build|test|runtime|develop)$/;
		for my $rel (sort keys %{ $p->{$phase} }) {
			problem("prereqs.$phase relation \"$rel\" is none of requires, recommends, suggests, conflicts")
			  unless $rel =~ /^(requires|recommends|suggests|conflicts)$/;
			while (my ($what, $v) = each %{ $p->{$phase}{$rel} }) {
				problem("prereqs.$phase.$rel.$what: \"$v\" is not a version or a version range")
				  if !length $v || grep { $_ !~ $comparison } split /,/, $v, -1;
			}
		}
	}
}

# the distribution
my $expected_top = "$meta->{name}-$meta->{version}";
problem("the files sit under $top/, not $expected_top/") unless $top eq $expected_top;
problem("the zip is named " . basename($zip) . ", not $expected_top.zip") unless basename($zip) eq "$expected_top.zip";
my $provides = $meta->{provides};
if (ref $provides ne 'HASH' || !%$provides) {
	problem("provides must name at least one extension");
} else {
	for my $ext (sort keys %$provides) {
		my $e = $provides->{$ext};
		problem("provides.$ext.file is required") unless is_string($e->{file});
		problem("provides.$ext.version \"" . ($e->{version} // '') . "\" is not a semantic version")
		  unless is_string($e->{version}) && $e->{version} =~ $semver;
		for my $k (qw(file docfile)) {
			problem("provides.$ext.$k $e->{$k} is not in the zip") if is_string($e->{$k}) && !$in_zip{ $e->{$k} };
		}
		my $control = `unzip -p \Q$zip\E \Q$top/$ext.control\E 2>/dev/null`;
		if ($control =~ /^default_version\s*=\s*'([^']*)'/m) {
			my $dv = $1;
			problem("$ext.control's default_version $dv does not match provides.$ext.version $e->{version}")
			  unless $e->{version} =~ /^\Q$dv\E(\.0)?$/ || $e->{version} eq $dv;
		} else {
			problem("$ext.control with a default_version is not in the zip");
		}
	}
}

# exactly the committed tree
if (system("git rev-parse --is-inside-work-tree >/dev/null 2>&1") == 0) {
	my @tracked = map { chomp; $_ } `git ls-tree -r --name-only HEAD`;
	# each file and the directories above it: a directory's attribute covers its files
	my %paths;
	for my $f (@tracked) {
		for (my $d = $f; $d ne '.'; $d = dirname($d)) { $paths{$d} = 1 }
	}
	my $list = File::Temp->new;
	print $list "$_\n" for sort keys %paths;
	close $list;
	my %ignored = map { /^(.*): export-ignore: set$/ ? ($1 => 1) : () } `git check-attr --stdin export-ignore <\Q$list\E`;
	my @kept;
	for my $f (@tracked) {
		my $out = 0;
		for (my $d = $f; $d ne '.'; $d = dirname($d)) { $out ||= $ignored{$d} }
		push @kept, $f unless $out;
	}
	my %kept = map { $_ => 1 } @kept;
	problem("$_ is committed but not in the zip") for grep { !$in_zip{$_} } @kept;
	problem("$_ is in the zip but not committed") for grep { !$kept{$_} } sort keys %in_zip;
}

print "pgxn: $_\n" for @problems;
if (@problems) {
	print "pgxn: " . scalar(@problems) . " problems\n";
	exit 1;
}
printf "pgxn: ok (%s, %d files, META.json spec %s)\n", basename($zip), scalar(@files), $spec->{version};
