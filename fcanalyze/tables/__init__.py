"""The shipped tables of deals 1..32,000 and the published counts they are held to."""
