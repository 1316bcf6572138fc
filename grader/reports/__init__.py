"""The report step's writers: each student's files, grades.csv, feedback pages, the class report."""
