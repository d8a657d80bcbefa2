"""Reports: comparing difficulty across cell counts in a dataset, as text, tables and plots."""
