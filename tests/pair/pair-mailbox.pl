#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-only
#
# A guest's mailbox (tests/pair/lib-core.sh): one process, no process
# started per message.  Listens on TCP PORT; each connection carries a key
# line and a value line; the value is written to INBOX/.in.<key>, renamed
# to INBOX/<key> (a reader never sees half a message) and answered with
# "ack <key>".  A connection that sends nothing for 10 s is dropped.
#
#   pair-mailbox.pl PORT INBOX

use strict;
use warnings;
use IO::Socket::INET;

my ($port, $inbox) = @ARGV;
die "usage: pair-mailbox.pl PORT INBOX\n" unless defined $inbox && -d $inbox;
$SIG{PIPE} = 'IGNORE';
my $srv = IO::Socket::INET->new(LocalPort => $port, Listen => 64,
				ReuseAddr => 1, Proto => 'tcp')
	or die "pair-mailbox: cannot listen on $port: $!\n";
while (1) {
	my $c = $srv->accept or next;
	$c->autoflush(1);
	my ($key, $val);
	eval {
		local $SIG{ALRM} = sub { die "timeout\n" };
		alarm 10;
		$key = <$c>;
		$val = <$c>;
		alarm 0;
	};
	alarm 0;
	if (defined $key && defined $val) {
		chomp $key;
		if ($key =~ /^[A-Za-z0-9._+-]+$/ && open(my $f, '>', "$inbox/.in.$key")) {
			print $f $val;
			close $f;
			rename "$inbox/.in.$key", "$inbox/$key";
			print $c "ack $key\n";
		}
	}
	close $c;
}
